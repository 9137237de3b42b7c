import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

@Suite(.timeLimit(.minutes(1))) struct IdempotencyKeyTests {
    static let create = Endpoint<EndpointKinds.Public, Item>(
        method: .post,
        path: "items",
        body: DataBody(Data("{}".utf8))
    )

    @Test("A POST gets one key for the whole call, and Retry may then send it again")
    func postRetriedWithOneKey() async throws {
        let transport = StubTransport(replies: [.status(503), .connectionLost(), .json(#"{"id": 1, "name": "new"}"#)])
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: transport,
            middleware: [IdempotencyKey(makeKey: { "key-1" }), Retry(RetryPolicy(baseDelay: .zero, jitter: 0))]
        )

        let item = try await client.response(for: Self.create)

        let keys = await transport.transportRequests.map { $0.headers["Idempotency-Key"] }
        #expect(item.name == "new")
        #expect(keys == ["key-1", "key-1", "key-1"])
    }

    @Test("Without a key a POST is not retried")
    func postWithoutKeyNotRetried() async throws {
        let transport = StubTransport(replies: [.status(503)])
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: transport,
            middleware: [Retry(RetryPolicy(baseDelay: .zero, jitter: 0))]
        )

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: Self.create) }

        #expect(error.statusCode == 503)
        #expect(await transport.transportRequests.count == 1)
    }

    @Test("GETs, requests with their own key and endpoints that opt out get no generated key")
    func notAdded() async throws {
        let transport = StubTransport(replies: [
            .json("[]"), .json(#"{"id": 1, "name": "a"}"#), .json(#"{"id": 1, "name": "a"}"#),
        ])
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: transport,
            middleware: [IdempotencyKey(makeKey: { "generated" })]
        )
        var own = Self.create
        own.headers["Idempotency-Key"] = "mine"
        var optedOut = Self.create
        optedOut.options.isIdempotencyKeyed = false

        _ = try await client.response(for: .featuredItems)
        _ = try await client.response(for: own)
        _ = try await client.response(for: optedOut)

        let keys = await transport.transportRequests.map { $0.headers["Idempotency-Key"] }
        #expect(keys == [nil, "mine", nil])
    }
}
