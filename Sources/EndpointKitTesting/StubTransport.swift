import EndpointKit
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ``Transport`` for tests: records every request and answers from a queue or a handler, without a network.
///
///     let transport = StubTransport(replies: [.json(#"{"items": []}"#)])
///     let client = EndpointClient(environment: environment, transport: transport)
///     _ = try await client.response(for: .search(for: "tea"), using: AccessToken("s3cret"))
///     let sent = try #require(await transport.requests.first)
///
/// With a queue, a request beyond the last reply throws ``UnexpectedRequestError`` naming it.
public actor StubTransport: Transport {
    private var replies: [StubResponse]
    private let handler: (@Sendable (URLRequest) async throws -> StubResponse)?
    /// Every request sent so far, in order, with its body file if it had one.
    public private(set) var transportRequests: [TransportRequest] = []

    /// Every `URLRequest` sent so far, in order.
    public var requests: [URLRequest] { transportRequests.map(\.urlRequest) }

    /// Creates a transport that answers requests with `replies`, in order.
    public init(replies: [StubResponse]) {
        self.replies = replies
        self.handler = nil
    }

    /// Creates a transport that answers each request with whatever `handler` returns for it.
    public init(handler: @escaping @Sendable (URLRequest) async throws -> StubResponse) {
        self.replies = []
        self.handler = handler
    }

    /// Queues more replies.
    public func enqueue(_ more: StubResponse...) {
        replies.append(contentsOf: more)
    }

    /// Records `request` and answers it.
    public func send(_ request: TransportRequest) async throws -> HTTPResponse {
        transportRequests.append(request)
        let reply: StubResponse
        if let handler {
            reply = try await handler(request.urlRequest)
        } else if !replies.isEmpty {
            reply = replies.removeFirst()
        } else {
            throw UnexpectedRequestError(request: request.urlRequest)
        }
        if reply.delay > .zero { try await Task.sleep(for: reply.delay) }
        try Task.checkCancellation()
        switch reply.outcome {
        case .response(var response):
            if response.url == nil { response.url = request.urlRequest.url }
            return response
        case .failure(let error):
            throw error
        }
    }

    /// Thrown for a request no reply was queued for.
    public struct UnexpectedRequestError: Error, CustomStringConvertible {
        /// The request's method and redacted URL.
        public let request: RequestSummary

        init(request: URLRequest) { self.request = RequestSummary(request) }

        /// `unexpected request: METHOD URL`.
        public var description: String { "StubTransport: unexpected request \(request)" }
    }
}
