import EndpointKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(1)))
struct RedirectIntegrationTests {
    @Test("A redirect to another origin does not carry the bearer token")
    func crossOrigin() async throws {
        let httpbin = try TestServers.httpbin()
        var components = try #require(URLComponents(url: httpbin, resolvingAgainstBaseURL: false))
        components.host = "localhost"
        components.path = "/headers"
        let otherOrigin = try #require(components.url)
        let client = try TestServers.httpbinClient()

        let echo = try await client.response(for: .redirect(to: otherOrigin), using: AccessToken("s3cr3t"))

        #expect(echo.headers["Host"]?.hasPrefix("localhost") == true)
        #expect(echo.headers["Authorization"] == nil)
    }

    @Test("An Authenticated endpoint redirected to another origin succeeds there without its token or API key")
    func authenticatedCrossOrigin() async throws {
        let httpbin = try TestServers.httpbin()
        var components = try #require(URLComponents(url: httpbin, resolvingAgainstBaseURL: false))
        components.host = "localhost"
        components.path = "/headers"
        let otherOrigin = try #require(components.url)
        let auth = BearerAuthentication(token: { AccessToken("s3cr3t") }, refresh: { $0 })
        let client = EndpointClient(environment: ServerEnvironment(baseURL: httpbin), middleware: [auth])
        var endpoint = Endpoint<EndpointKinds.Authenticated, Echo>(
            path: "redirect-to",
            queryItems: [URLQueryItem(name: "url", value: otherOrigin.absoluteString)]
        )
        endpoint.headers["X-API-Key"] = "k-123"

        let echo = try await client.response(for: endpoint)

        #expect(echo.headers["Host"]?.hasPrefix("localhost") == true)
        #expect(echo.headers["Authorization"] == nil)
        #expect(echo.headers["X-Api-Key"] == nil)
    }

    @Test("A same-origin redirect keeps the bearer token")
    func sameOrigin() async throws {
        let target = try TestServers.httpbin().appendingPathComponent("headers")
        let client = try TestServers.httpbinClient()

        let echo = try await client.response(for: .redirect(to: target), using: AccessToken("s3cr3t"))

        #expect(echo.headers["Authorization"] == "Bearer s3cr3t")
    }
}
