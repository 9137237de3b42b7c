import EndpointKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A 401 with an HTTP authentication challenge (`WWW-Authenticate: Basic`) is an answer like any other: Linux
/// URLSession hands such challenges to the session's delegate, and a request with a body must not wait there.
@Suite(.timeLimit(.minutes(1)))
struct ChallengeIntegrationTests {
    @Test(
        "A 401 with a Basic challenge comes back at once as the 401, for a request with a body and without",
        arguments: [HTTPMethod.get, .post, .put]
    )
    func basicChallenge(method: HTTPMethod) async throws {
        var defaults = RequestDefaults()
        // Far past what a prompt answer takes; a request left waiting on the challenge fails the test.
        defaults.timeout = .seconds(20)
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.httpbin()),
            defaults: defaults
        )
        let endpoint = Endpoint<EndpointKinds.Public, EmptyResponse>(
            method: method,
            path: "status/\(401)",
            body: method == .get ? nil : JSONBody(["name": "tea"])
        )

        let error = await #expect(throws: EndpointError.self) { try await client.response(for: endpoint) }

        #expect(error?.kind == .unacceptableStatus)
        #expect(error?.statusCode == 401)
    }

    @Test("The 401 keeps its headers; the next request on the client goes through as usual")
    func headersKept() async throws {
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        let bytes =
            "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"api\"\r\nX-Reason: expired\r\n"
            + "Content-Length: 4\r\n\r\nnope"

        let error = await #expect(throws: EndpointError.self) {
            try await client.response(for: RawResponse.endpoint("challenge-\(UUID().uuidString)", bytes))
        }
        let after = try await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "echo/\("after")"))

        #expect(error?.statusCode == 401)
        #expect(error?.responseHeaders?["X-Reason"] == "expired")
        #expect(after.isEmpty)
    }
}
