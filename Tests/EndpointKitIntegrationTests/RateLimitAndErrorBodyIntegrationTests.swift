import EndpointKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

private struct Tally: Decodable { var count: Int }

private struct Thing: Decodable, Equatable {
    var id: Int
    var name: String
}

private struct Problem: Error, Decodable, Sendable, Equatable {
    struct Detail: Decodable, Sendable, Equatable {
        var field: String
        var code: String
    }

    var message: String
    var errors: [Detail]
}

/// GitHub-style rate limits and an API's own error JSON, answered by the loopback fault server.
@Suite(.timeLimit(.minutes(1)))
struct RateLimitAndErrorBodyIntegrationTests {
    private func counter(_ name: String, _ key: String) async throws -> Int {
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        return try await client.response(for: Endpoint<EndpointKinds.Public, Tally>(path: "count/\(name)/\(key)")).count
    }

    @Test("A 403 with x-ratelimit-remaining: 0 is retried once its x-ratelimit-reset time has passed, not before")
    func waitsForTheReset() async throws {
        let key = UUID().uuidString
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.fault()),
            middleware: [Retry(RetryPolicy(rateLimitReset: .github))]
        )

        let response = try await client.exchange(for: Endpoint<EndpointKinds.Public, Thing>(path: "ratelimit/\(key)"))

        #expect(response.value == Thing(id: 1, name: "ok"))
        #expect(response.attempts == 2)
        #expect(try await counter("ratelimit-early", key) == 0, "the retry came before the reset")
    }

    @Test("A reset an hour away fails at once with rateLimited instead of sleeping")
    func farResetFails() async throws {
        let key = UUID().uuidString
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.fault()),
            middleware: [Retry(RetryPolicy(maxRetryAfter: .seconds(60), rateLimitReset: .github))]
        )

        let error = try await #require(throws: EndpointError.self) {
            try await client.response(
                for: Endpoint<EndpointKinds.Public, Thing>(
                    path: "ratelimit/\(key)",
                    queryItems: [URLQueryItem(name: "far", value: "1")]
                )
            )
        }

        #expect(error.kind == .rateLimited)
        #expect(error.statusCode == 403)
        #expect((error.retryAfter ?? .zero) > .seconds(3500))
        #expect(try await counter("ratelimit", key) == 1)
    }

    @Test("An API's own error JSON on a 422 decodes into its declared type; the error stays unacceptableStatus")
    func declaredErrorBody() async throws {
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.fault()),
            validators: [.errorBody(Problem.self)]
        )

        let error = try await #require(throws: EndpointError.self) {
            try await client.response(for: Endpoint<EndpointKinds.Public, Thing>(path: "problem/\(UUID().uuidString)"))
        }

        #expect(error.kind == .unacceptableStatus)
        #expect(error.statusCode == 422)
        #expect(error.serverError(as: Problem.self)?.errors == [.init(field: "name", code: "missing")])
        #expect(error.body.map { String(decoding: $0, as: UTF8.self) }?.hasPrefix(#"{"message": "Validation"#) == true)
    }
}
