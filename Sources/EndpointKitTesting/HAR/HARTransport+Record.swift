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
        let started = Date()
        let clock = ContinuousClock.now
        let capture = BodyCapture(limit: record.maximumBodySize)
        var liveOptions = options
        var collectLimit: Int?
        if case .collect(let limit) = options.body {
            // Collected here, through the tee, so that a body past the limit is recorded up to where it stopped.
            collectLimit = limit
            liveOptions.body = .stream(bufferLimit: nil)
        }
        if case .write(let sink) = options.body {
            // The body goes to the sink as it arrives: each chunk is kept on its way there.
            liveOptions.body = .write(
                to: BodySink { status, headers in
                    guard let writer = sink.writer(statusCode: status, headers: headers) else { return nil }
                    return { chunk in
                        capture.append(chunk)
                        try writer(chunk)
                    }
                }
            )
        }
        let response: TransportResponse
        do {
            response = try await live.send(request, options: liveOptions)
        } catch {
            let kind = (error as? EndpointError)?.kind ?? (error is CancellationError ? .cancelled : .transportFailed)
            let failure = HARArchive.Failure(
                startedDateTime: HARRecord.timestamp(started),
                time: Self.milliseconds(clock, .now),
                request: recorded,
                error: kind.name
            )
            state.withLock { $0.items.append(.failure(failure)) }
            throw error
        }
        let head = ContinuousClock.now
        let finish: @Sendable (Bool) -> Void = { [self] complete in
            guard capture.end() else { return }
            let end = ContinuousClock.now
            let entry = HARArchive.Entry(
                startedDateTime: HARRecord.timestamp(started),
                time: Self.milliseconds(clock, end),
                request: recorded,
                response: record.response(
                    response,
                    body: capture.bytes,
                    size: capture.total,
                    chunks: capture.chunks,
                    complete: complete,
                    secrets: secrets
                ),
                timings: HARArchive.Timings(wait: Self.milliseconds(clock, head), receive: Self.milliseconds(head, end))
            )
            state.withLock { $0.items.append(.entry(entry)) }
        }
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

    static func milliseconds(_ from: ContinuousClock.Instant, _ to: ContinuousClock.Instant) -> Double {
        let (seconds, attoseconds) = (to - from).components
        return (Double(seconds) * 1_000 + Double(attoseconds) / 1e15 * 1_000).rounded() / 1_000
    }
}

/// The bytes of a body on their way to its reader or sink, kept up to one past the limit, and whether the
/// exchange was recorded already.
final class BodyCapture: Sendable {
    let limit: Int
    private let state = Mutexed((bytes: Data(), total: 0, ended: false, chunks: [Int]()))

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
