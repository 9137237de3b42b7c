#if AsyncHTTPClient
import AsyncHTTPClient
import EndpointKit
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

extension AsyncHTTPClientTransport {
    /// Sends `request` and reads its body whole, up to `limit` bytes, through AsyncHTTPClient's delegate API,
    /// whose deadline runs until the last byte of the body: the attempt's one deadline, enforced by the client's
    /// own event loop, with no task or timer of EndpointKit's. The idle timeout is a timer on the same loop,
    /// moved on by every chunk.
    func sendCollecting(_ request: TransportRequest, limit: Int, options: TransportOptions) async throws
        -> TransportResponse
    {
        let legacyRequest: HTTPClient.Request
        do {
            legacyRequest = try HTTPClient.Request(
                url: request.url,
                method: NIOHTTP1.HTTPMethod(rawValue: request.method.rawValue),
                headers: Self.clientHeaders(for: request),
                body: try request.body.map {
                    try Self.legacyBody(for: $0, progress: options.uploadProgress, on: client.eventLoopGroup.any())
                }
            )
        } catch {
            throw Self.endpointError(from: error, afterHead: false, idleTimeout: options.idleTimeout)
        }
        let collector = CollectingDelegate(
            limit: limit,
            isHead: request.method == .head,
            idleTimeout: options.idleTimeout,
            url: request.url
        )
        let task = client.execute(
            request: legacyRequest,
            delegate: collector,
            deadline: options.timeout.map(Self.deadline)
        )
        return try await withTaskCancellationHandler {
            do {
                return try await task.futureResult.get().response
            } catch let error as HTTPClientError where error == .deadlineExceeded {
                let timeout = options.timeout.map { " of \(Self.seconds($0)) s" } ?? ""
                throw EndpointError(
                    .timedOut,
                    "no complete response within the deadline\(timeout) (timeout)",
                    underlyingError: error
                )
            } catch {
                throw Self.endpointError(from: error, afterHead: collector.sawHead, idleTimeout: options.idleTimeout)
            }
        } onCancel: {
            task.cancel()
        }
    }

    /// `duration` from now, as NIO counts time; far in the future when it would overflow.
    static func deadline(_ duration: Duration) -> NIODeadline {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !nanoseconds.overflow else { return .distantFuture }
        return .now() + .nanoseconds(nanoseconds.partialValue + attoseconds / 1_000_000_000)
    }

    /// A request body for the delegate API: bytes in memory as they are, anything else (or a body whose upload
    /// progress is watched) written chunk by chunk as the connection takes them.
    private static func legacyBody(
        for body: TransportRequest.Body,
        progress: (@Sendable (_ sent: Int64, _ expected: Int64?) -> Void)?,
        on eventLoop: any EventLoop
    ) throws -> HTTPClient.Body {
        if let data = body.data, progress == nil { return .bytes(data) }
        let chunks = RequestChunks(chunks: try body.makeChunks(), length: body.length, progress: progress)
        return .stream(contentLength: body.length.map(Int64.init)) { writer in
            let promise = eventLoop.makePromise(of: Void.self)
            promise.completeWithTask {
                for try await piece in chunks { try await writer.write(.byteBuffer(piece)).get() }
            }
            return promise.futureResult
        }
    }
}

/// Collects one response on its event loop: the head, then the body up to the limit (by EndpointKit's one
/// collector rule), failing as soon as it is announced or grows past it, or when no byte arrives within the idle
/// timeout.
private final class CollectingDelegate: HTTPClientResponseDelegate, Sendable {
    /// The response in a box: NIO's futures copy their value at each step, and a reference copies with one
    /// retain where the response's fields would take one each.
    final class Response: Sendable {
        let response: TransportResponse
        init(_ response: TransportResponse) { self.response = response }
    }

    private struct State {
        var statusCode = 0
        var headers = EndpointKit.HTTPHeaders()
        var headReceivedAt: ContinuousClock.Instant?
        var protocolVersion: String?
        var collector: BodyCollector?
        var idleTimer: Scheduled<Void>?
    }

    private let limit: Int
    private let isHead: Bool
    private let idleTimeout: Duration?
    private let url: URL
    private let state = NIOLockedValueBox(State())

    init(limit: Int, isHead: Bool, idleTimeout: Duration?, url: URL) {
        self.limit = limit
        self.isHead = isHead
        self.idleTimeout = idleTimeout
        self.url = url
    }

    /// Whether the head arrived: a failure after it cut the body short.
    var sawHead: Bool { state.withLockedValue { $0.headReceivedAt != nil } }

    func didSendRequest(task: HTTPClient.Task<Response>) { armIdleTimer(task) }

    func didReceiveHead(task: HTTPClient.Task<Response>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        let headers = AsyncHTTPClientTransport.headers(from: head.headers)
        if (100..<200).contains(head.status.code) {
            return task.eventLoop.makeFailedFuture(
                AsyncHTTPClientTransport.unaskedUpgrade(status: head.status, headers: headers)
            )
        }
        let announced = headers.announcedBodyLength(statusCode: Int(head.status.code), isHead: isHead)
        do {
            let collector = try BodyCollector(limit: limit, announced: announced.flatMap { Int(exactly: $0) })
            state.withLockedValue { state in
                state.statusCode = Int(head.status.code)
                state.headers = headers
                state.headReceivedAt = .now
                state.protocolVersion = AsyncHTTPClientTransport.protocolVersion(head.version)
                state.collector = collector
            }
        } catch {
            return task.eventLoop.makeFailedFuture(error)
        }
        armIdleTimer(task)
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Response>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        do {
            // Copied once, from NIO's buffer into the body.
            try state.withLockedValue { state in
                try buffer.withUnsafeReadableBytes { bytes in try state.collector?.append(bytes) }
            }
        } catch {
            return task.eventLoop.makeFailedFuture(error)
        }
        armIdleTimer(task)
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveError(task: HTTPClient.Task<Response>, _ error: any Error) {
        state.withLockedValue { $0.idleTimer?.cancel() }
    }

    func didFinishRequest(task: HTTPClient.Task<Response>) throws -> Response {
        state.withLockedValue { state in
            state.idleTimer?.cancel()
            var response = TransportResponse(
                statusCode: state.statusCode,
                headers: state.headers,
                url: url,
                data: state.collector?.take() ?? Data()
            )
            response.headReceivedAt = state.headReceivedAt
            response.protocolVersion = state.protocolVersion
            return Response(response)
        }
    }

    /// Fails the request when no byte arrives within the idle timeout from now.
    private func armIdleTimer(_ task: HTTPClient.Task<Response>) {
        guard let idleTimeout else { return }
        let timer = task.eventLoop.scheduleTask(deadline: AsyncHTTPClientTransport.deadline(idleTimeout)) {
            task.fail(reason: ResponseChunks.IdleTimeout())
        }
        state.withLockedValue { state in
            state.idleTimer?.cancel()
            state.idleTimer = timer
        }
    }
}
#endif
