import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Appends its name to a header on the way in, so tests can read the order steps ran in.
private struct Tagging: Middleware {
    var name: String
    func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext) async throws
        -> TransportResponse
    {
        var request = request
        let trail = request.headers["X-Trail"].map { $0 + "," } ?? ""
        request.headers["X-Trail"] = trail + name
        return try await next(request, context: context)
    }
}

/// Answers from a cache without calling the rest of the chain.
private struct ShortCircuit: Middleware {
    func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext) async throws
        -> TransportResponse
    {
        TransportResponse(statusCode: 200, data: Data("[]".utf8))
    }
}

/// Sends every request twice and returns the second response.
private struct Twice: Middleware {
    func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext) async throws
        -> TransportResponse
    {
        _ = try await next(request, context: context)
        return try await next(request, context: context)
    }
}

@Suite(.timeLimit(.minutes(1))) struct MiddlewareTests {
    @Test("Middleware runs in array order, the first outermost")
    func order() async throws {
        let transport = StubTransport(replies: [.json("[]")])
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: transport,
            middleware: [Tagging(name: "a"), Tagging(name: "b"), Tagging(name: "c")]
        )

        _ = try await client.response(for: .featuredItems)

        #expect(await transport.requests.first?.value(forHTTPHeaderField: "X-Trail") == "a,b,c")
    }

    @Test("A step may answer without calling the next one")
    func zeroCalls() async throws {
        let transport = StubTransport(replies: [])
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: transport,
            middleware: [ShortCircuit()]
        )

        let items = try await client.response(for: .featuredItems)

        #expect(items.isEmpty)
        #expect(await transport.requests.isEmpty)
    }

    @Test("A step may call the next one more than once")
    func manyCalls() async throws {
        let transport = StubTransport(replies: [
            .json(#"[{"id": 1, "name": "a"}]"#), .json(#"[{"id": 2, "name": "b"}]"#),
        ])
        let client = EndpointClient(environment: Fixture.environment, transport: transport, middleware: [Twice()])

        let items = try await client.response(for: .featuredItems)

        #expect(items.map(\.id) == [2])
        #expect(await transport.requests.count == 2)
    }

    @Test("Per-endpoint options reach middleware")
    func options() async throws {
        enum Traced: RequestOptionKey { static let defaultValue = "default" }
        struct ReadsOption: Middleware {
            func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext) async throws
                -> TransportResponse
            {
                var request = request
                request.headers["X-Traced"] = context.options[Traced.self]
                return try await next(request, context: context)
            }
        }
        let transport = StubTransport(replies: [.json("[]"), .json("[]")])
        let client = EndpointClient(environment: Fixture.environment, transport: transport, middleware: [ReadsOption()])
        var tuned = Endpoint.featuredItems
        tuned.options[Traced.self] = "tuned"

        _ = try await client.response(for: .featuredItems)
        _ = try await client.response(for: tuned)

        #expect(await transport.requests.map { $0.value(forHTTPHeaderField: "X-Traced") } == ["default", "tuned"])
    }

    @Test("An error a step throws reaches the caller as an EndpointError")
    func thrownError() async throws {
        struct Refuse: Middleware {
            struct Blocked: Error {}
            func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext) async throws
                -> TransportResponse
            { throw Blocked() }
        }
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: StubTransport(replies: []),
            middleware: [Refuse()]
        )

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: .featuredItems) }

        #expect(error.kind == .transportFailed)
        #expect(error.underlyingError is Refuse.Blocked)
    }

    @Test("The client's deadline fails a slow exchange with timedOut, below one second too")
    func deadline() async throws {
        let transport = StubTransport(replies: [StubResponse.json("[]").delayed(by: .seconds(600))])
        var endpoint = Endpoint.featuredItems
        endpoint.timeout = .milliseconds(200)
        let client = EndpointClient(environment: Fixture.environment, transport: transport)

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: endpoint) }

        #expect(error.kind == .timedOut)
        #expect(error.attempts == 1)
    }

    @Test("The client's default timeout applies to endpoints that set none")
    func clientDeadline() async throws {
        let transport = StubTransport(replies: [StubResponse.json("[]").delayed(by: .seconds(600))])
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: transport,
            defaults: RequestDefaults(timeout: .milliseconds(200))
        )

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: .featuredItems) }

        #expect(error.kind == .timedOut)
    }

    @Test("A zero or negative timeout is refused; one of 10⁹ s or more means no deadline of EndpointKit's own")
    func oddTimeouts() async throws {
        let transport = StubTransport { _ in .json("[]") }
        let client = EndpointClient(environment: Fixture.environment, transport: transport)

        for bad in [Duration.zero, .seconds(-1), .milliseconds(-1)] {
            var endpoint = Endpoint.featuredItems
            endpoint.timeout = bad
            let error = try await #require(throws: EndpointError.self) { try await client.response(for: endpoint) }
            #expect(error.kind == .invalidRequest)
        }
        var unbounded = Endpoint.featuredItems
        unbounded.timeout = .seconds(1_000_000_000)
        #expect(try await client.response(for: unbounded).isEmpty)
    }

    @Test("An Authenticated endpoint is not sent without a middleware that adds credentials")
    func authenticatedWithoutMiddleware() async throws {
        let transport = StubTransport(replies: [.json("{}")])
        let client = EndpointClient(environment: Fixture.environment, transport: transport)
        let endpoint = Endpoint<EndpointKinds.Authenticated, EmptyResponse>(path: "me")

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: endpoint) }

        #expect(error.kind == .invalidRequest)
        #expect(await transport.requests.isEmpty)
    }

    @Test("Basic credentials are sent base64-encoded and never printed")
    func basic() async throws {
        let transport = StubTransport(replies: [.json("{}")])
        let client = EndpointClient(environment: Fixture.environment, transport: transport)
        let credentials = BasicCredentials(user: "ops", password: "pa:ss wörd")

        _ = try await client.response(
            for: Endpoint<EndpointKinds.Basic, EmptyResponse>(path: "stats"),
            using: credentials
        )

        let expected = "Basic " + Data("ops:pa:ss wörd".utf8).base64EncodedString()
        #expect(await transport.requests.first?.value(forHTTPHeaderField: "Authorization") == expected)
        #expect(!"\(credentials)".contains("pa:ss"))
    }
}
