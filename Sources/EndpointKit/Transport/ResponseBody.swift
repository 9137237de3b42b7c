import Foundation

/// A response body: an `AsyncSequence` of byte chunks, either already in memory or streamed from the network
/// as it arrives.
///
///     let data = try await response.body.collect(upTo: 1 << 20)      // the whole body, at most 1 MiB
///     for try await chunk in response.body { file.write(chunk) }   // or chunk by chunk
///
/// A streamed body can be iterated once; a second iteration throws. Leaving the loop early, or dropping the
/// body without reading it, stops the transfer. Iterating from a cancelled task throws
/// ``EndpointError/Kind/cancelled`` instead of ending as if the body were complete.
public struct ResponseBody: AsyncSequence, Sendable {
    /// A chunk of bytes.
    public typealias Element = Data

    private enum Storage: Sendable {
        case buffered(Data)
        case streamed(StreamedBody)
        case channel(BodyChannelReader)
        case pulled(any PulledSource)
    }

    private let storage: Storage
    /// The body's length in bytes when known in advance (a `Content-Length` without a content encoding, or a
    /// body in memory); `nil` otherwise.
    public let length: Int?

    /// A body whose bytes are all in memory.
    public init(_ data: Data = Data()) {
        storage = .buffered(data)
        length = data.count
    }

    /// A body streamed from `chunks`, which may be iterated once.
    ///
    /// A transport finishes the stream when the body is complete and throws an ``EndpointError`` when it is cut
    /// short; its `onTermination` handler should stop the transfer, since it runs when the reader leaves.
    ///
    /// - Parameters:
    ///   - length: The announced length, or `nil` when unknown.
    ///   - chunks: The chunks, in order.
    public init(length: Int?, chunks: AsyncThrowingStream<Data, any Error>) {
        storage = .streamed(StreamedBody(chunks))
        self.length = length
    }

    /// A body read from `chunks` on demand: each chunk is asked for only when the reader wants the next one.
    ///
    /// This is the initialiser for a transport with back-pressure (an HTTP stack that stops reading from the
    /// socket until its body is read on): nothing is buffered between the stack and the reader, so a slow
    /// reader slows the server down instead of filling memory. The sequence is iterated once, from the
    /// reader's task; cancelling that task cancels the pending `next()`, and dropping the body or leaving the
    /// loop drops the sequence's iterator, which should stop the transfer.
    ///
    /// - Parameters:
    ///   - length: The announced length, or `nil` when unknown.
    ///   - chunks: The chunks, in order; an error it throws should be an ``EndpointError``.
    public init<Chunks: AsyncSequence & Sendable>(length: Int?, pulling chunks: Chunks)
    where Chunks.Element == Data {
        // Read straight from the sequence's iterator: wrapping it in a stream cost a task hop per chunk.
        storage = .pulled(PulledChunks(chunks))
        self.length = length
    }

    /// A body fed by ``URLSessionTransport``'s delegate through a channel.
    init(length: Int?, channel: BodyChannel) {
        storage = .channel(BodyChannelReader(channel))
        self.length = length
    }

    /// The bytes, when the body is already in memory; `nil` while it is still streamed.
    public var bufferedData: Data? {
        if case .buffered(let data) = storage { return data }
        return nil
    }

    /// Reads the whole body, failing as soon as it passes `limit` bytes.
    ///
    /// When ``length`` already exceeds the limit, it fails before reading a byte; otherwise it fails as the
    /// chunk that crosses the limit arrives, and the transfer stops.
    ///
    /// - Throws: ``EndpointError/Kind/responseTooLarge`` past the limit; ``EndpointError/Kind/cancelled`` when
    ///   the calling task is cancelled; whatever the transport reports when the body is cut short.
    public func collect(upTo limit: Int) async throws -> Data {
        try await collect(upTo: limit, progress: nil)
    }

    /// ``collect(upTo:)``, calling `progress` with the byte count so far after each chunk.
    func collect(upTo limit: Int, progress: ((Int) -> Void)?) async throws -> Data {
        var collector = try BodyCollector(limit: limit, announced: length)
        if case .buffered(let data) = storage {
            progress?(data.count)
            return data
        }
        if case .channel(let reader) = storage, progress == nil {
            guard reader.claim() else { throw Self.secondReader() }
            return try await reader.channel.collect(upTo: limit)
        }
        for try await chunk in self {
            try collector.append(chunk)
            progress?(collector.data.count)
        }
        return collector.take()
    }

    /// Hands every chunk to `write` as it arrives, until the body ends.
    ///
    /// For a body streamed by ``URLSessionTransport`` the chunks are written on the transport's own thread as
    /// they arrive, with nothing buffered in between: Linux URLSession cannot be slowed down, so a reader that
    /// awaited each chunk would let the body pile up in memory whenever it fell behind. `write` must not block
    /// for long. Other bodies are read chunk by chunk.
    func drain(into write: @escaping @Sendable (Data) throws -> Void) async throws {
        if case .channel(let reader) = storage {
            guard reader.claim() else { throw Self.secondReader() }
            try await reader.channel.drain(into: write)
            return
        }
        for try await chunk in self { try write(chunk) }
    }

    /// The first `limit` bytes, or the whole body when it is shorter; the rest is left unread.
    func prefix(_ limit: Int) async throws -> Data {
        var data = Data()
        for try await chunk in self {
            data.append(chunk.prefix(limit - data.count))
            if data.count >= limit { break }
        }
        return data
    }

    static func secondReader() -> EndpointError {
        EndpointError(.invalidRequest, "a streamed response body can be read only once")
    }

    /// The request whose body this is, when the client knows it: every error its readers throw names it.
    var request: RequestSummary?

    /// Starts reading the body.
    public func makeAsyncIterator() -> Iterator {
        var iterator =
            switch storage {
            case .buffered(let data): Iterator(buffered: data)
            case .streamed(let body): Iterator(streamed: body.claim())
            case .channel(let reader): Iterator(channel: reader)
            case .pulled(let source): Iterator(pulled: source)
            }
        iterator.request = request
        return iterator
    }

    /// Reads a body chunk by chunk.
    public struct Iterator: AsyncIteratorProtocol {
        private var buffered: Data?
        private var streamed: AsyncThrowingStream<Data, any Error>.AsyncIterator?
        private var channel: BodyChannelReader?
        private var pulled: (any PulledSource)?
        /// Drops the pulled sequence's iterator when this iterator is dropped before the end, which is how a
        /// transport with back-pressure learns to stop.
        private var pulledLeaver: PulledLeaver?
        /// Stops the transfer when this iterator is dropped before the end: leaving a `for try await` loop.
        private var leaver: ChannelLeaver?
        private var isSecondReader = false
        /// The request the body answers, named by the errors this iterator and the sequences over it throw.
        var request: RequestSummary?

        init(buffered: Data) {
            self.buffered = buffered.isEmpty ? nil : buffered
        }

        init(streamed: AsyncThrowingStream<Data, any Error>?) {
            self.streamed = streamed?.makeAsyncIterator()
            isSecondReader = streamed == nil
        }

        init(pulled source: any PulledSource) {
            isSecondReader = !source.claim()
            pulled = isSecondReader ? nil : source
            pulledLeaver = isSecondReader ? nil : PulledLeaver(source)
        }

        init(channel: BodyChannelReader) {
            isSecondReader = !channel.claim()
            self.channel = isSecondReader ? nil : channel
            leaver = isSecondReader ? nil : ChannelLeaver(channel.channel)
        }

        /// The next chunk, or `nil` at the end of the body.
        public mutating func next() async throws -> Data? {
            do {
                return try await nextChunk()
            } catch {
                throw named(EndpointError.wrapping(error))
            }
        }

        /// `error`, naming the request the body answers unless it names one already.
        func named(_ error: EndpointError) -> EndpointError {
            guard error.request == nil, let request else { return error }
            var error = error
            error.request = request
            return error
        }

        private mutating func nextChunk() async throws -> Data? {
            if let chunk = buffered {
                buffered = nil
                return chunk
            }
            if isSecondReader {
                isSecondReader = false
                throw ResponseBody.secondReader()
            }
            if let channel {
                let chunk = try await channel.channel.next()
                if chunk == nil {
                    self.channel = nil
                    leaver = nil
                }
                return chunk
            }
            if let pulled {
                let chunk = try await pulled.next()
                if chunk == nil {
                    self.pulled = nil
                    pulledLeaver = nil
                    try Self.checkCancellation()
                }
                return chunk
            }
            guard streamed != nil else { return nil }
            // An AsyncThrowingStream ends quietly when its reader is cancelled: say so, rather than hand back a
            // body that only looks complete.
            try Self.checkCancellation()
            let chunk = try await streamed?.next()
            if chunk == nil {
                streamed = nil
                try Self.checkCancellation()
            }
            return chunk
        }

        private static func checkCancellation() throws {
            if Task.isCancelled {
                throw EndpointError(.cancelled, "the task was cancelled while the body was read")
            }
        }
    }
}

/// The one stream of a streamed body, handed to the first reader only.
private final class StreamedBody: Sendable {
    private let stream: Locked<AsyncThrowingStream<Data, any Error>?>

    init(_ stream: AsyncThrowingStream<Data, any Error>) { self.stream = Locked(stream) }

    func claim() -> AsyncThrowingStream<Data, any Error>? {
        stream.withLock { stream in
            defer { stream = nil }
            return stream
        }
    }
}

/// Leaves a ``BodyChannel`` when the last copy of an iterator over it goes away: a reader that left its loop
/// early stops the transfer at once, rather than when the response itself is dropped. Leaving a channel whose
/// body is complete changes nothing.
private final class ChannelLeaver: Sendable {
    let channel: BodyChannel

    init(_ channel: BodyChannel) { self.channel = channel }

    deinit { channel.leave() }
}

/// A body read on demand, by its one reader.
protocol PulledSource: AnyObject, Sendable {
    /// Whether this is the first reader; a pulled body can be read once.
    func claim() -> Bool
    /// The next chunk, or `nil` at the end.
    func next() async throws -> Data?
    /// Drops the sequence's iterator: the reader left.
    func leave()
}

/// Calls ``PulledSource/leave()`` when the last copy of the iterator reading it goes away.
private final class PulledLeaver: Sendable {
    let source: any PulledSource

    init(_ source: any PulledSource) { self.source = source }

    deinit { source.leave() }
}

/// The iterator of a body read on demand, made on the first request for a chunk; dropped with the body, which
/// is what tells the transport to stop.
private final class PulledChunks<Chunks: AsyncSequence & Sendable>: PulledSource, @unchecked Sendable
where Chunks.Element == Data {
    // Safe because only the reader that claimed the body calls `next()`, one chunk at a time, and `leave()` runs
    // when that reader's iterator goes away, after its last `next()`: `iterator` and `isLeft` are never touched
    // by two tasks at once. `claimed` is behind its lock.
    private let chunks: Chunks
    private var iterator: Chunks.AsyncIterator?
    private var isLeft = false
    private let claimed = Locked(false)

    init(_ chunks: Chunks) { self.chunks = chunks }

    func claim() -> Bool {
        claimed.withLock { claimed in
            defer { claimed = true }
            return !claimed
        }
    }

    func next() async throws -> Data? {
        if isLeft { return nil }
        if iterator == nil { iterator = chunks.makeAsyncIterator() }
        return try await iterator?.next()
    }

    func leave() {
        iterator = nil
        isLeft = true
    }
}
