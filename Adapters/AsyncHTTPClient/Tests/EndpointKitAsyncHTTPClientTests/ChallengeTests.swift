#if AsyncHTTPClient
import EndpointKit
import EndpointKitAsyncHTTPClient
import Foundation
import Testing

/// A 401 with an authentication challenge is an answer like any other, as it is through URLSessionTransport.
@Suite(.timeLimit(.minutes(1)))
struct ChallengeTests {
    private let transport = AsyncHTTPClientTransport()

    @Test(
        "A 401 with a Basic challenge comes back at once as the 401, for a request with a body and without",
        arguments: [HTTPMethod.get, .post]
    )
    func basicChallenge(method: HTTPMethod) async throws {
        var defaults = RequestDefaults()
        defaults.timeout = .seconds(20)
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.httpbin()),
            transport: transport,
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
}
#endif
