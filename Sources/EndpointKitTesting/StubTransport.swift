import EndpointKit
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if canImport(Testing)
import Testing
#endif

/// A ``Transport`` for tests: records every request and answers from a queue or a handler, without a network.
///
///     let transport = StubTransport(replies: [.json(#"{"items": []}"#)])
///     let client = EndpointClient(environment: environment, transport: transport)
///     _ = try await client.response(for: .search(for: "tea"), using: AccessToken("s3cret"))
///     let sent = try #require(await transport.requests.first)
///
/// A request beyond the last queued reply fails loudly: inside a Swift Testing test it records an issue that
/// names the request and how to stub it (so code under test cannot swallow it), and the transport throws
/// ``UnexpectedRequestError``.
public actor StubTransport: Transport {
    private var replies: [StubResponse]
    private let handler: (@Sendable (TransportRequest) async throws -> StubResponse)?
    private let clock: any Clock<Duration>
    /// Every request sent so far, in order, as the transport received it (typed, with its body).
    public private(set) var transportRequests: [TransportRequest] = []
    /// The options each request was sent with, in the same order: its deadline, idle timeout and body handling.
    public private(set) var sentOptions: [TransportOptions] = []

    /// Every request sent so far, in order, as a `URLRequest` (an in-memory body as `httpBody`).
    public var requests: [URLRequest] {
        transportRequests.map { request in
            var urlRequest = URLRequest(url: request.url)
            urlRequest.httpMethod = request.method.rawValue
            for field in request.headers {
                urlRequest.addValue(field.value, forHTTPHeaderField: field.name.rawValue)
            }
            urlRequest.httpBody = request.body?.data
            return urlRequest
        }
    }

    /// Creates a transport that answers requests with `replies`, in order.
    ///
    /// - Parameters:
    ///   - replies: The answers, in order.
    ///   - clock: The clock a reply's ``StubResponse/delay`` is waited on: pass the client's (a `TestClock` in
    ///     a test that moves time by hand) so that one clock rules every wait.
    public init(replies: [StubResponse], clock: any Clock<Duration> = ContinuousClock()) {
        self.replies = replies
        self.handler = nil
        self.clock = clock
    }

    /// Creates a transport that answers each request with whatever `handler` returns for it; a reply's delay is
    /// waited on `clock`.
    public init(
        clock: any Clock<Duration> = ContinuousClock(),
        handler: @escaping @Sendable (TransportRequest) async throws -> StubResponse
    ) {
        self.replies = []
        self.handler = handler
        self.clock = clock
    }

    /// Queues more replies.
    public func enqueue(_ more: StubResponse...) {
        replies.append(contentsOf: more)
    }

    /// Records `request` and its options, and answers it.
    public func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse {
        transportRequests.append(request)
        sentOptions.append(options)
        let reply: StubResponse
        if let handler {
            reply = try await handler(request)
        } else if !replies.isEmpty {
            reply = replies.removeFirst()
        } else {
            let error = UnexpectedRequestError(request: RequestSummary(request))
            #if canImport(Testing)
            if Test.current != nil {
                Issue.record(
                    "\(error.description); queue a reply for it with `enqueue(_:)` or pass one in `replies:`"
                )
            }
            #endif
            throw error
        }
        if reply.delay > .zero { try await clock.sleep(for: reply.delay) }
        try Task.checkCancellation()
        switch reply.outcome {
        case .response(var response):
            if response.url == nil { response.url = request.url }
            return response
        case .failure(let error):
            throw error
        }
    }

    /// Thrown for a request no reply was queued for.
    public struct UnexpectedRequestError: Error, CustomStringConvertible {
        /// The request's method and redacted URL.
        public let request: RequestSummary

        /// `StubTransport: unexpected request METHOD URL`.
        public var description: String { "StubTransport: unexpected request \(request)" }
    }
}
