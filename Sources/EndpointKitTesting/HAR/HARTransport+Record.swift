import EndpointKit
import Foundation

extension HARTransport {
    /// Sends `request` live and records the exchange once its body ends (or its reader leaves it).
    func sendLive(
        _ request: TransportRequest,
        recorded: HARArchive.Request,
        secrets: Set<String>,
        options: TransportOptions
    ) async throws -> TransportResponse {
        guard let live else { throw EndpointError(.invalidRequest, "no live transport to send with") }
        let started = (date: Date(), instant: ContinuousClock.now)
        let capture = BodyCapture(limit: record.maximumBodySize)
        let (liveOptions, collectLimit) = Self.recording(options, into: capture)
        let response: TransportResponse
        do {
            response = try await live.send(request, options: liveOptions)
        } catch {
            recordFailure(error, of: recorded, started: started)
            throw error
        }
        let finish = finisher(for: response, of: recorded, secrets: secrets, started: started, capture: capture)
        if let buffered = response.body.bufferedData {
            if capture.total == 0 { capture.append(buffered) }
            finish(true)
            return response
        }
        var teed = response
        teed.body = ResponseBody(
            length: response.body.length,
            pulling: TeedChunks(base: response.body, capture: capture, finish: finish)
        )
        if let collectLimit {
            if let length = response.body.length, length > collectLimit {
                // Refused unread, as a transport that collects would: recorded with its announced size alone.
                capture.announce(length)
                finish(false)
            }
            teed.body = ResponseBody(try await teed.body.collect(upTo: collectLimit))
        }
        return teed
    }

    /// The options the live transport gets: a body to collect is streamed, and collected here through the tee
    /// (so that one past the limit is recorded up to where it stopped); a sink's chunks are kept on their way.
    private static func recording(_ options: TransportOptions, into capture: BodyCapture) -> (TransportOptions, Int?) {
        var live = options
        switch options.body {
        case .collect(let limit):
            live.body = .stream(bufferLimit: nil)
            return (live, limit)
        case .write(let sink):
            live.body = .write(
                to: BodySink { status, headers in
                    guard let writer = sink.writer(statusCode: status, headers: headers) else { return nil }
                    return { chunk in
                        capture.append(chunk)
                        try writer(chunk)
                    }
                }
            )
            return (live, nil)
        case .stream:
            return (live, nil)
        }
    }

    /// Keeps a request that got no response, with the kind of error it failed with.
    private func recordFailure(
        _ error: any Error,
        of recorded: HARArchive.Request,
        started: (date: Date, instant: ContinuousClock.Instant)
    ) {
        let kind = (error as? EndpointError)?.kind ?? (error is CancellationError ? .cancelled : .transportFailed)
        let failure = HARArchive.Failure(
            startedDateTime: HARRecord.timestamp(started.date),
            time: Self.milliseconds(started.instant, .now),
            request: recorded,
            error: kind.name
        )
        state.withLock { $0.items.append(.failure(failure)) }
    }

    /// What records the exchange, once, when its body ends (`true`) or is left (`false`).
    private func finisher(
        for response: TransportResponse,
        of recorded: HARArchive.Request,
        secrets: Set<String>,
        started: (date: Date, instant: ContinuousClock.Instant),
        capture: BodyCapture
    ) -> @Sendable (Bool) -> Void {
        let head = ContinuousClock.now
        return { [self] complete in
            guard capture.end() else { return }
            let end = ContinuousClock.now
            let entry = HARArchive.Entry(
                startedDateTime: HARRecord.timestamp(started.date),
                time: Self.milliseconds(started.instant, end),
                request: recorded,
                response: record.response(
                    response,
                    body: capture.bytes,
                    size: capture.total,
                    chunks: capture.chunks,
                    complete: complete,
                    secrets: secrets
                ),
                timings: HARArchive.Timings(
                    wait: Self.milliseconds(started.instant, head),
                    receive: Self.milliseconds(head, end)
                )
            )
            state.withLock { $0.items.append(.entry(entry)) }
        }
    }

    /// Milliseconds between two instants, to the microsecond.
    static func milliseconds(_ from: ContinuousClock.Instant, _ to: ContinuousClock.Instant) -> Double {
        let (seconds, attoseconds) = (to - from).components
        return (Double(seconds) * 1e6 + Double(attoseconds) / 1e12).rounded() / 1_000
    }
}

/// The bytes of a body on their way to its reader or sink, kept up to one past the limit, and whether the
/// exchange was recorded already.
final class BodyCapture: Sendable {
    let limit: Int
    private let state = Locked((bytes: Data(), total: 0, ended: false, chunks: [Int]()))

    init(limit: Int) { self.limit = limit }

    func append(_ chunk: Data) {
        state.withLock { state in
            state.total += chunk.count
            if state.chunks.count < 4_096 { state.chunks.append(chunk.count) }
            if state.bytes.count <= limit { state.bytes.append(chunk.prefix(limit + 1 - state.bytes.count)) }
        }
    }

    /// Notes a body of `length` bytes that is not read at all.
    func announce(_ length: Int) { state.withLock { $0.total = max($0.total, length) } }

    var bytes: Data { state.withLock { $0.bytes } }
    /// The sizes of the chunks the body came in.
    var chunks: [Int] { state.withLock { $0.chunks } }
    var total: Int { state.withLock { $0.total } }

    /// Marks the body ended; `true` the first time only.
    func end() -> Bool {
        state.withLock { state in
            defer { state.ended = true }
            return !state.ended
        }
    }
}

/// A live body, each chunk kept on its way to the reader; the exchange is recorded when it ends, fails, or is
/// left by its reader.
struct TeedChunks: AsyncSequence, Sendable {
    typealias Element = Data
    let base: ResponseBody
    let capture: BodyCapture
    let finish: @Sendable (Bool) -> Void

    final class AsyncIterator: AsyncIteratorProtocol {
        var base: ResponseBody.Iterator
        let capture: BodyCapture
        let finish: @Sendable (Bool) -> Void

        init(_ chunks: TeedChunks) {
            base = chunks.base.makeAsyncIterator()
            capture = chunks.capture
            finish = chunks.finish
        }

        func next() async throws -> Data? {
            do {
                guard let chunk = try await base.next() else {
                    finish(true)
                    return nil
                }
                capture.append(chunk)
                return chunk
            } catch {
                finish(false)
                throw error
            }
        }

        deinit { finish(false) }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(self) }
}
