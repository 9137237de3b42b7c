#if AsyncHTTPClient
import EndpointKit
import EndpointKitAsyncHTTPClient
import Foundation
import Testing

/// Through AsyncHTTPClient as through URLSession: a write whose answer is lost after the server applied it is sent
/// again with its Idempotency-Key and applied once; the draft's 409 and 422 reach the caller as typed errors.
@Suite(.timeLimit(.minutes(1)))
struct IdempotencyTests {
    private let transport = AsyncHTTPClientTransport()

    private struct Applied: Decodable, Equatable {
        var applied: Int
        var body: String
    }

    private struct Log: Decodable { var applied: [String] }

    private func client(middleware: [any Middleware] = []) throws -> EndpointClient {
        EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.fault()),
            transport: transport,
            middleware: middleware
        )
    }

    private static func write(
        _ key: String,
        _ body: String,
        _ query: [URLQueryItem] = [],
        idempotencyKey: String? = nil
    )
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

    @Test("A write whose answer is lost after the server applied it is sent again with its key and applied once")
    func droppedAfterApply() async throws {
        let key = "ahc-drop-\(UUID().uuidString)"
        let client = try client(middleware: [IdempotencyKey(), Retry(RetryPolicy(maxAttempts: 3, baseDelay: .zero))])

        let answer = try await client.exchange(for: Self.write(key, "rename", [URLQueryItem(name: "drop", value: "1")]))
        let log = try await client.response(for: Endpoint<EndpointKinds.Public, Log>(path: "idem-log/\(key)/\("g")"))

        #expect(answer.value == Applied(applied: 1, body: "rename"))
        #expect(answer.attempts == 2)
        #expect(answer.headers["Idempotency-Replayed"] == "true")
        #expect(log.applied == ["rename"])
    }

    @Test("The same key with another body is 422, and without a key the write is refused with 400")
    func refusals() async throws {
        let key = "ahc-refused-\(UUID().uuidString)"
        let client = try client()
        _ = try await client.response(for: Self.write(key, "first", idempotencyKey: "k1"))

        let otherBody = await #expect(throws: EndpointError.self) {
            try await client.response(for: Self.write(key, "second", idempotencyKey: "k1"))
        }
        let noKey = await #expect(throws: EndpointError.self) {
            try await client.response(for: Self.write(key, "third"))
        }

        #expect(otherBody?.statusCode == 422)
        #expect(noKey?.statusCode == 400)
    }
}
#endif
