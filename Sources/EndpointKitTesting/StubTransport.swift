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
    /// Every request sent so far, in order, as the transport received it (typed, with its body).
    public private(set) var transportRequests: [TransportRequest] = []

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
    public init(replies: [StubResponse]) {
        self.replies = replies
        self.handler = nil
    }

    /// Creates a transport that answers each request with whatever `handler` returns for it.
    public init(handler: @escaping @Sendable (TransportRequest) async throws -> StubResponse) {
        self.replies = []
        self.handler = handler
    }

    /// Queues more replies.
    public func enqueue(_ more: StubResponse...) {
        replies.append(contentsOf: more)
    }

    /// Records `request` and answers it.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        transportRequests.append(request)
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
        if reply.delay > .zero { try await Task.sleep(for: reply.delay) }
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
