import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A port outside 1–65535 is accepted by `URL`, yet no connection can use it: AsyncHTTPClient traps on one (an IP
/// literal) or truncates it (a host name). It is refused, typed, before any transport sees the request.
@Suite(.timeLimit(.minutes(1))) struct URLPortTests {
    @Test(
        "A written port outside 1–65535 is a problem; none, an empty one or one in range is not",
        arguments: [
            ("http://127.0.0.1:70000/", true), ("http://[::1]:70000/", true), ("http://localhost:70000/x", true),
            ("http://h.test:0/", true), ("http://h.test:99999999999999999999/", true),
            ("http://u:p@h.test:65536/", true),
            ("http://h.test:65535/", false), ("http://h.test:1/", false), ("http://h.test/", false),
            ("http://h.test:/", false), ("http://[::1]/a:70000", false), ("http://u:70000@h.test/", false),
            ("https://h.test/?next=h:70000", false),
        ]
    )
    func portProblem(url: String, isRefused: Bool) throws {
        let parsed = try #require(URL(string: url))

        #expect((parsed.portProblem != nil) == isRefused, "\(url)")
    }

    @Test("An environment whose port is 70000 fails as invalidRequest, and nothing is sent")
    func environmentPort() async throws {
        let transport = StubTransport(replies: [.json("[]")])
        let environment = ServerEnvironment(baseURL: try #require(URL(string: "http://127.0.0.1:70000/v1")))
        let client = EndpointClient(environment: environment, transport: transport)

        let error = try await #require(throws: EndpointError.self) {
            try await client.response(for: Endpoint<EndpointKinds.Public, [Item]>.featuredItems)
        }

        #expect(error.kind == .invalidRequest)
        #expect(error.description.contains("70000"))
        #expect(await transport.transportRequests.isEmpty)
    }

    @Test("A redirect to port 70000 is refused, naming its Location, and only the first request is sent")
    func redirectPort() async throws {
        let transport = StubTransport(replies: [
            .response(status: 302, headers: [.location: "http://[::1]:70000/x"], body: Data()), .json("[]"),
        ])
        let client = EndpointClient(environment: Fixture.environment, transport: transport)

        let error = try await #require(throws: EndpointError.self) {
            try await client.response(for: Endpoint<EndpointKinds.Public, [Item]>.featuredItems)
        }

        #expect(error.kind == .redirectRefused)
        #expect(error.description.contains("[::1]:70000"))
        #expect(await transport.transportRequests.count == 1)
    }

    @Test("A next page at port 70000 fails as invalidRequest after the first page, and is never sent")
    func nextPagePort() async throws {
        let transport = StubTransport(replies: [
            .response(
                status: 200,
                headers: [.contentType: "application/json", .link: #"<http://127.0.0.1:70000/p2>; rel="next""#],
                body: Data("[]".utf8)
            ),
            .json("[]"),
        ])
        let client = EndpointClient(environment: Fixture.environment, transport: transport, cache: nil)
        var iterator = client.pages(for: Endpoint<EndpointKinds.Public, [Item]>.featuredItems, next: .link)
            .makeAsyncIterator()

        _ = try await iterator.next()
        let error = try await #require(throws: EndpointError.self) { try await iterator.next() }

        #expect(error.kind == .invalidRequest)
        #expect(await transport.transportRequests.count == 1)
    }

    @Test("A middleware that moves a checked request to port 70000 is refused at the hop: a new URL is checked anew")
    func middlewarePort() async throws {
        struct MovePort: Middleware {
            func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext) async throws
                -> TransportResponse
            {
                var request = request
                request.url = try #require(URL(string: "http://127.0.0.1:70000/v1/featured"))
                return try await next(request, context: context)
            }
        }
        let transport = StubTransport(replies: [.json("[]")])
        let client = EndpointClient(environment: Fixture.environment, transport: transport, middleware: [MovePort()])

        let error = try await #require(throws: EndpointError.self) {
            try await client.response(for: Endpoint<EndpointKinds.Public, [Item]>.featuredItems)
        }

        #expect(error.kind == .invalidRequest)
        #expect(await transport.transportRequests.isEmpty)
    }

    @Test("validate() refuses what the client would: a bad port, a bad method, a header with a line break")
    func validate() throws {
        let url = try #require(URL(string: "https://api.test/v1"))
        var bad = [
            TransportRequest(url: try #require(URL(string: "https://api.test:0/v1"))),
            TransportRequest(method: HTTPMethod("GE T"), url: url),
            TransportRequest(url: url),
        ]
        bad[2].headers.add("a\r\nInjected: 1", for: "X-Note")

        for request in bad {
            #expect(throws: EndpointError.self) { try request.validate() }
        }
        #expect(throws: Never.self) { try TransportRequest(url: url).validate() }
    }
}
