import EndpointKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

private struct StaticItem: Decodable, Equatable {
    var id: Int
    var name: String
}

private struct AuthorizationEcho: Decodable {
    var authorization: String
}

/// Real TLS against nginx: a certificate from the run's test CA (trusted for the test command by
/// `scripts/with-test-ca.sh`) and one from a CA nobody trusts.
@Suite(.timeLimit(.minutes(1)))
struct TLSIntegrationTests {
    private func client(_ baseURL: URL) -> EndpointClient {
        EndpointClient(environment: ServerEnvironment(baseURL: baseURL), envelope: .plain)
    }

    @Test("A call over https to a trusted server decodes its response")
    func trustedServer() async throws {
        let item = try await client(TestServers.https()).response(
            for: Endpoint<EndpointKinds.Public, NetworkResponse<StaticItem>>(path: "item.json")
        )

        #expect(item.result == StaticItem(id: 7, name: "static"))
    }

    @Test("A private endpoint over https carries its token to the server")
    func tokenOverTLS() async throws {
        let echo = try await client(TestServers.https()).response(
            for: Endpoint<EndpointKinds.Private, AuthorizationEcho>(path: "authorization"),
            using: AccessToken("s3cr3t")
        )

        #expect(echo.authorization == "Bearer s3cr3t")
    }

    @Test("A server whose certificate the client does not trust fails as secureConnectionFailed, never retried")
    func untrustedServer() async throws {
        let retry = Retry(RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1), jitter: 0))
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.untrustedHTTPS()),
            middleware: [retry]
        )

        let error = try await #require(throws: EndpointError.self) {
            try await client.response(
                for: Endpoint<EndpointKinds.Private, Data>(path: "item.json"),
                using: AccessToken("s3cr3t")
            )
        }

        #expect(error.kind == .secureConnectionFailed)
        #expect(!error.isTransient)
        #expect(error.attempts == 1)
        #expect(!"\(error)".contains("s3cr3t"))
    }

    @Test("A redirect from a trusted server to an untrusted one fails as secureConnectionFailed")
    func redirectToUntrustedServer() async throws {
        let error = try await #require(throws: EndpointError.self) {
            try await client(TestServers.https()).response(
                for: Endpoint<EndpointKinds.Public, Data>(path: "to-untrusted")
            )
        }

        #expect(error.kind == .secureConnectionFailed)
    }

    @Test("A redirect from https to http is refused, and the token never leaves TLS")
    func downgradeRefused() async throws {
        let error = try await #require(throws: EndpointError.self) {
            try await client(TestServers.https()).response(
                for: Endpoint<EndpointKinds.Private, Data>(path: "to-http"),
                using: AccessToken("s3cr3t")
            )
        }

        #expect(error.kind == .redirectRefused)
        #expect(error.statusCode == 302)
        #expect(error.message.contains("http://127.0.0.1"))
    }

    @Test("A redirect from https to https on the same server is followed with the token")
    func sameOriginRedirectOverTLS() async throws {
        let item = try await client(TestServers.https()).response(
            for: Endpoint<EndpointKinds.Private, NetworkResponse<StaticItem>>(path: "to-https"),
            using: AccessToken("s3cr3t")
        )

        #expect(item.result.id == 7)
    }
}
