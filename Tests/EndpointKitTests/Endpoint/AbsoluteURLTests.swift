import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Endpoint where Kind == EndpointKinds.Private, Response == SearchResults {
    fileprivate static func page(at url: URL) -> Self { Endpoint(url: url) }
}

@Suite(.timeLimit(.minutes(1))) struct AbsoluteURLTests {
    private let environment = ServerEnvironment(
        baseURL: Fixture.baseURL,
        headers: ["X-Tenant": "t-1", "X-API-Key": "k-secret"],
        queryItems: [URLQueryItem(name: "locale", value: "en")]
    )

    private func url(_ text: String) throws -> URL { try #require(URL(string: text)) }

    @Test("An absolute URL at the environment's origin keeps its query, gets the environment's, and the token")
    func sameOrigin() async throws {
        let transport = StubTransport { request in
            #expect(request.url.absoluteString == "https://api.test/v1/search?q=tea&page=2&locale=en")
            #expect(request.headers[.authorization] == "Bearer t0k3n")
            #expect(request.headers["X-Tenant"] == "t-1")
            #expect(request.headers["X-API-Key"] == "k-secret")
            return .json(#"{"items": []}"#)
        }
        let client = EndpointClient(environment: environment, transport: transport)

        _ = try await client.response(
            for: .page(at: url("https://api.test/v1/search?q=tea&page=2#top")),
            using: AccessToken("t0k3n")
        )
    }

    @Test("An absolute URL at another origin goes without the token, API key and the environment's headers")
    func otherOrigin() async throws {
        let transport = StubTransport { request in
            #expect(request.url.absoluteString == "https://cdn.example.com/search?page=2")
            #expect(request.headers[.authorization] == nil)
            #expect(request.headers["X-API-Key"] == nil)
            #expect(request.headers["X-Tenant"] == nil)
            return .json(#"{"items": []}"#)
        }
        let client = EndpointClient(environment: environment, transport: transport)

        _ = try await client.response(
            for: .page(at: url("https://cdn.example.com/search?page=2")),
            using: AccessToken("t0k3n")
        )
    }

    @Test("http on an https API is another origin: no token goes over plain http")
    func downgradeIsAnotherOrigin() async throws {
        let transport = StubTransport { request in
            #expect(request.headers[.authorization] == nil)
            return .json(#"{"items": []}"#)
        }
        let client = EndpointClient(environment: environment, transport: transport)

        _ = try await client.response(for: .page(at: url("http://api.test/v1/search")), using: AccessToken("t0k3n"))
    }

    @Test(
        "A URL that is not http(s), has no host or carries user info is refused before anything is sent",
        arguments: [
            "ftp://api.test/x", "file:///etc/passwd", "data:text/plain,hi", "https://user:pw@api.test/x", "/v1/x",
        ]
    )
    func refused(text: String) async throws {
        let client = EndpointClient(environment: environment, transport: StubTransport(replies: []))

        let error = try await #require(throws: EndpointError.self) {
            try await client.response(for: .page(at: url(text)), using: AccessToken("t0k3n"))
        }

        #expect(error.kind == .invalidRequest)
        #expect(!"\(error)".contains("pw@"))
    }

    @Test("The next page from a Link header is fetched through the same endpoint type")
    func followsLink() async throws {
        let transport = StubTransport { request in
            if request.url.query == "locale=en" {
                return .response(
                    status: 200,
                    headers: [
                        "Content-Type": "application/json",
                        "Link": "<https://api.test/v1/search?after=1>; rel=\"next\"",
                    ],
                    body: Data(#"{"items": [{"id": 1, "name": "a"}]}"#.utf8)
                )
            }
            #expect(request.url.query == "after=1&locale=en")
            return .json(#"{"items": [{"id": 2, "name": "b"}]}"#)
        }
        let client = EndpointClient(environment: environment, transport: transport)
        let token = AccessToken("t0k3n")

        let first = try await client.exchange(for: .page(at: url("https://api.test/v1/search")), using: token)
        let link = try #require(first.headers["Link"])
        let next = try url(String(link.dropFirst().prefix { $0 != ">" }))
        let second = try await client.exchange(for: .page(at: next), using: token)

        #expect(first.value.items.map(\.id) + second.value.items.map(\.id) == [1, 2])
    }
}
