import EndpointKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(1)))
struct AbsoluteURLIntegrationTests {
    /// httpbin's `/headers` at `host` instead of the environment's 127.0.0.1.
    private func headersURL(host: String) throws -> URL {
        var components = try #require(URLComponents(url: TestServers.httpbin(), resolvingAgainstBaseURL: false))
        components.host = host
        components.path = "/headers"
        return try #require(components.url)
    }

    @Test("An absolute URL at the API's origin carries the token; one at another origin does not")
    func credentialsFollowOrigin() async throws {
        let client = try TestServers.httpbinClient()
        let token = AccessToken("s3cr3t")

        let same = try await client.response(
            for: Endpoint<EndpointKinds.Private, Echo>(url: headersURL(host: "127.0.0.1")),
            using: token
        )
        let other = try await client.response(
            for: Endpoint<EndpointKinds.Private, Echo>(url: headersURL(host: "localhost")),
            using: token
        )

        #expect(same.headers["Authorization"] == "Bearer s3cr3t")
        #expect(other.headers["Host"]?.hasPrefix("localhost") == true)
        #expect(other.headers["Authorization"] == nil)
    }
}
