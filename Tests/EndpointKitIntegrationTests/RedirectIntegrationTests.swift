import EndpointKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(1)))
struct RedirectIntegrationTests {
    /// httpbin's `/headers` at another origin: the same server, named `localhost` instead of `127.0.0.1`.
    static func headersElsewhere(_ httpbin: URL) throws -> URL {
        var components = try #require(URLComponents(url: httpbin, resolvingAgainstBaseURL: false))
        components.host = "localhost"
        components.path = "/headers"
        return try #require(components.url)
    }

    /// An endpoint whose kind is `Kind` that httpbin redirects to `target`.
    static func redirect<Kind: EndpointKind>(_: Kind.Type, to target: URL) -> Endpoint<Kind, Echo> {
        Endpoint(path: "redirect-to", queryItems: [URLQueryItem(name: "url", value: target.absoluteString)])
    }

    @Test("A redirect to another origin does not carry the bearer token")
    func crossOrigin() async throws {
        let httpbin = try TestServers.httpbin()
        let otherOrigin = try Self.headersElsewhere(httpbin)
        let client = try TestServers.httpbinClient()

        let echo = try await client.response(for: .redirect(to: otherOrigin), using: AccessToken("s3cr3t"))

        #expect(echo.headers["Host"]?.hasPrefix("localhost") == true)
        #expect(echo.headers["Authorization"] == nil)
    }

    @Test("An Authenticated endpoint redirected to another origin succeeds there without its token or API key")
    func authenticatedCrossOrigin() async throws {
        let httpbin = try TestServers.httpbin()
        let otherOrigin = try Self.headersElsewhere(httpbin)
        let auth = BearerAuthentication(token: { AccessToken("s3cr3t") }, refresh: { $0 })
        let client = EndpointClient(environment: ServerEnvironment(baseURL: httpbin), middleware: [auth])
        var endpoint = Self.redirect(EndpointKinds.Authenticated.self, to: otherOrigin)
        endpoint.headers["X-API-Key"] = "k-123"

        let echo = try await client.response(for: endpoint)

        #expect(echo.headers["Host"]?.hasPrefix("localhost") == true)
        #expect(echo.headers["Authorization"] == nil)
        #expect(echo.headers["X-Api-Key"] == nil)
    }

    @Test("A kind's declared credential header goes to its origin, and not to another one a redirect leads to")
    func kindCredentialCrossOrigin() async throws {
        let httpbin = try TestServers.httpbin()
        let otherOrigin = try Self.headersElsewhere(httpbin)
        let client = try TestServers.httpbinClient()
        let redirected = Self.redirect(ShopKeyKind.self, to: otherOrigin)

        let there = try await client.response(for: redirected, using: "k-123")
        let here = try await client.response(for: Endpoint<ShopKeyKind, Echo>(path: "headers"), using: "k-123")

        #expect(there.headers["Host"]?.hasPrefix("localhost") == true)
        #expect(there.headers["X-Shop-Key"] == nil)
        #expect(here.headers["X-Shop-Key"] == "k-123")
    }

    @Test("A same-origin redirect keeps the bearer token")
    func sameOrigin() async throws {
        let target = try TestServers.httpbin().appendingPathComponent("headers")
        let client = try TestServers.httpbinClient()

        let echo = try await client.response(for: .redirect(to: target), using: AccessToken("s3cr3t"))

        #expect(echo.headers["Authorization"] == "Bearer s3cr3t")
    }

    @Test(
        "A server's redirect to port 70000 is refused, typed and naming its Location, before URLSession sees it",
        arguments: ["http://127.0.0.1:70000/", "http://[::1]:70000/", "http://localhost:70000/"]
    )
    func portOutOfRange(location: String) async throws {
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        let endpoint = RawResponse.endpoint(
            UUID().uuidString,
            "HTTP/1.1 302 Found\r\nLocation: \(location)\r\nContent-Length: 0\r\n\r\n"
        )

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: endpoint) }

        #expect(error.kind == .redirectRefused)
        #expect(error.description.contains(":70000"))
    }
}

/// Sends a key in `X-Shop-Key`, a header EndpointKit does not know as secret, and declares it.
enum ShopKeyKind: EndpointKind {
    static let credentialNames = CredentialNames(headers: ["X-Shop-Key"])

    static func prepare(_ request: inout URLRequest, with key: String) throws {
        try request.setCheckedValue(key, for: "X-Shop-Key")
    }
}
