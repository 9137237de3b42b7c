// The README's request-pipeline and body snippets, as written there: must type-check.
import EndpointKit
import Foundation

struct APIError: Error, Decodable, Sendable {
    var code: Int
    var message: String
}
struct Profile: Decodable, Sendable { var name: String }

extension Endpoint where Kind == EndpointKinds.Authenticated, Response == Profile {
    static var myProfile: Self { Endpoint(path: "me") }
}

enum Keychain { static func accessToken() async throws -> AccessToken { AccessToken("a") } }
enum AuthServer { static func refresh(_ token: AccessToken) async throws -> AccessToken { AccessToken("b") } }

func pipeline() async throws {
    let auth = BearerAuthentication(
        token: { try await Keychain.accessToken() },
        refresh: { rejected in try await AuthServer.refresh(rejected) }
    )
    let client = EndpointClient(
        environment: environment,
        middleware: [
            auth, Retry(RetryPolicy(maxAttempts: 4)), Throttle(maxConcurrent: 8), ExchangeLogging { print($0) },
        ],
        validators: [.errorEnvelope(APIError.self)],
        redirectPolicy: .default
    )
    let profile = try await client.response(for: .myProfile)
    var endpoint = Endpoint<EndpointKinds.Public, [Item]>(
        path: "items",
        query: ["tags": ["green", "hot"], "inStock": true, "after": Optional<String>.none]
    )
    endpoint.options.retryPolicy = .never
    print(profile, try client.curlCommand(for: endpoint))
}
