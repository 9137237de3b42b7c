import EndpointKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The fault server keeps the Idempotency-Key draft (07): a write applied once however often it arrives, 409 while
/// the first is in flight, 422 for the key with another body; and EndpointKit's `IdempotencyKey` and `Retry` get a
/// write applied exactly once when the connection drops after the server applied it.
@Suite(.timeLimit(.minutes(1)))
struct IdempotencyIntegrationTests {
    private struct Applied: Decodable, Equatable {
        var applied: Int
        var group: String
        var body: String
    }

    private struct Log: Decodable { var applied: [String] }
    private struct Tally: Decodable { var count: Int }

    private static func write(_ key: String, _ body: String, query: [URLQueryItem] = [], idempotencyKey: String? = nil)
        -> Endpoint<EndpointKinds.Public, Applied>
    {
        var endpoint = Endpoint<EndpointKinds.Public, Applied>(
            method: .post,
            path: "idem/\(key)/\("g")",
            queryItems: query,
            body: DataBody(Data(body.utf8), contentType: "text/plain")
        )
        if let idempotencyKey { endpoint.headers["Idempotency-Key"] = "\"\(idempotencyKey)\"" }
        return endpoint
    }

    private static func log(_ client: EndpointClient, _ key: String) async throws -> [String] {
        try await client.response(for: Endpoint<EndpointKinds.Public, Log>(path: "idem-log/\(key)/\("g")")).applied
    }

    @Test("A write whose answer is lost after the server applied it is sent again with its key and applied once")
    func droppedAfterApply() async throws {
        let key = "drop-\(UUID().uuidString)"
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.fault()),
            middleware: [IdempotencyKey(), Retry(RetryPolicy(maxAttempts: 3, baseDelay: .zero))]
        )

        let answer = try await client.exchange(
            for: Self.write(key, "rename", query: [URLQueryItem(name: "drop", value: "1")])
        )

        #expect(answer.value == Applied(applied: 1, group: "g", body: "rename"))
        #expect(answer.attempts == 2)
        #expect(answer.headers["Idempotency-Replayed"] == "true")
        #expect(try await Self.log(client, key) == ["rename"])
    }

    @Test("A write without a key is refused with 400, as the draft lets a server that requires one, and not applied")
    func withoutKey() async throws {
        let key = "nokey-\(UUID().uuidString)"
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))

        let error = await #expect(throws: EndpointError.self) {
            try await client.response(for: Self.write(key, "rename", query: [URLQueryItem(name: "drop", value: "1")]))
        }

        #expect(error?.statusCode == 400)
        #expect(try await Self.log(client, key).isEmpty)
    }

    @Test("The same key with another body is 422; the same key while the first is in flight is 409")
    func conflicts() async throws {
        let key = "conflict-\(UUID().uuidString)"
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        let slow = Task {
            try await client.response(
                for: Self.write(
                    key,
                    "first",
                    query: [URLQueryItem(name: "hold", value: "1")],
                    idempotencyKey: "k1"
                )
            )
        }
        // A gate the server opens once it has applied the first request: no clock.
        _ = try await client.response(
            for: Endpoint<EndpointKinds.Public, Tally>(
                path: "await/\(path: EndpointPath(stringLiteral: "idem-applied/\(key)"))"
            )
        )

        let inFlight = await #expect(throws: EndpointError.self) {
            try await client.response(for: Self.write(key, "first", idempotencyKey: "k1"))
        }
        let otherBody = await #expect(throws: EndpointError.self) {
            try await client.response(for: Self.write(key, "second", idempotencyKey: "k1"))
        }
        // The server answers the first request only now: both others came while it was in flight, however slow
        // the machine.
        _ = try await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "release/\(key)"))
        let first = try await slow.value

        #expect(inFlight?.statusCode == 409)
        #expect(otherBody?.statusCode == 422)
        #expect(first.applied == 1)
        #expect(try await Self.log(client, key) == ["first"])
    }
}
