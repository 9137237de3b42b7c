import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Records the attempts' response heads as they arrive.
private final class HeadWatcher: ExchangeObserver {
    let headArrived = Gate()

    func observe(_ event: ExchangeEvent) {
        if case .responseReceived = event { headArrived.open() }
    }
}

@Suite(.timeLimit(.minutes(1))) struct ExchangeTests {
    @Test("exchange(for:) returns the decoded value with the final response's status, headers, URL and one attempt")
    func valueWithHead() async throws {
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        headers.add("<https://api.test/v1/items?page=2>; rel=\"next\"", for: "Link")
        headers.add("<https://api.test/v1/items?page=9>; rel=\"last\"", for: "Link")
        let transport = StubTransport(replies: [
            .response(status: 201, headers: headers, body: Data(#"{"id": 1, "name": "tea"}"#.utf8))
        ])
        let client = EndpointClient(environment: Fixture.environment, transport: transport)

        let response = try await client.exchange(for: .item(1))

        #expect(response.value == Item(id: 1, name: "tea"))
        #expect(response.statusCode == 201)
        #expect(response.headers.values(for: "Link").count == 2)
        #expect(response.url?.absoluteString == "https://api.test/v1/items/1")
        #expect(response.attempts == 1)
        #expect(response.timeToFirstByte <= response.duration)
    }

    @Test("After a retry, exchange(for:) reports the final response and both attempts")
    func afterRetry() async throws {
        let transport = StubTransport(replies: [.status(503), .json(#"{"id": 2, "name": "pot"}"#)])
        let retry = Retry(RetryPolicy(baseDelay: .zero, jitter: 0))
        let client = EndpointClient(environment: Fixture.environment, transport: transport, middleware: [retry])

        let response = try await client.exchange(for: .item(2))

        #expect(response.statusCode == 200)
        #expect(response.attempts == 2)
        #expect(response.value.name == "pot")
    }

    @Test("After a redirect, exchange(for:) reports the URL that answered")
    func afterRedirect() async throws {
        let transport = StubTransport { request in
            if request.url.path == "/v1/items/3" {
                return .response(status: 302, headers: ["Location": "/v1/archive/items/3"])
            }
            #expect(request.url.path == "/v1/archive/items/3")
            return .json(#"{"id": 3, "name": "cup"}"#)
        }
        let client = EndpointClient(environment: Fixture.environment, transport: transport)

        let response = try await client.exchange(for: .item(3))

        #expect(response.url?.absoluteString == "https://api.test/v1/archive/items/3")
        #expect(response.value.id == 3)
    }

    @Test("exchange(for:) fails exactly as response(for:) does, with the status and body kept")
    func sameErrors() async throws {
        let transport = StubTransport(replies: [
            .json(#"{"message": "no such item"}"#, status: 404), .json(#"{"message": "no such item"}"#, status: 404),
        ])
        let client = EndpointClient(environment: Fixture.environment, transport: transport)

        let viaExchange = try await #require(throws: EndpointError.self) { try await client.exchange(for: .item(4)) }
        let viaResponse = try await #require(throws: EndpointError.self) { try await client.response(for: .item(4)) }

        #expect(viaExchange.kind == .unacceptableStatus)
        #expect(viaExchange.statusCode == 404)
        #expect(viaExchange.description == viaResponse.description)
    }

    @Test("exchange(for:using:) with request data carries it, like response(for:using:)")
    func withRequestData() async throws {
        let transport = StubTransport { request in
            #expect(request.headers[.authorization] == "Bearer t0k3n")
            return .json(#"{"items": []}"#)
        }
        let client = EndpointClient(environment: Fixture.environment, transport: transport)

        let response = try await client.exchange(for: .search(for: "tea"), using: AccessToken("t0k3n"))

        #expect(response.value.items.isEmpty)
    }

    @Test("Time to first byte ends when the head arrives, before a body that streams in afterwards")
    func timeToFirstByte() async throws {
        let watcher = HeadWatcher()
        let transport = StubTransport { _ in
            let body = AsyncThrowingStream<Data, any Error> { continuation in
                Task {
                    await watcher.headArrived.wait()
                    continuation.yield(Data(#"{"id": 5, "name": "jar"}"#.utf8))
                    continuation.finish()
                }
            }
            return .response(
                TransportResponse(
                    statusCode: 200,
                    headers: ["Content-Type": "application/json"],
                    body: ResponseBody(length: nil, chunks: body)
                )
            )
        }
        let client = EndpointClient(environment: Fixture.environment, transport: transport, observers: [watcher])

        let response = try await client.exchange(for: .item(5))

        #expect(response.timeToFirstByte < response.duration)
        #expect(response.timeToFirstByte > .zero)
    }

    @Test("map keeps the head while transforming the value")
    func mapKeepsHead() {
        let response = EndpointKit.Response(
            value: [1, 2, 3],
            statusCode: 206,
            headers: ["ETag": "\"v1\""],
            attempts: 2
        )

        let mapped = response.map(\.count)

        #expect(mapped.value == 3)
        #expect(mapped.statusCode == 206)
        #expect(mapped.headers["ETag"] == "\"v1\"")
        #expect(mapped.attempts == 2)
    }
}
