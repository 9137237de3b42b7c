import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(1))) struct EndpointPublisherTests {
    @Test("A publisher is cold: nothing is sent until it is iterated, then exactly one request")
    func cold() async throws {
        let transport = StubTransport(replies: [.json(#"{"id": 1, "name": "probe"}"#), .json("[]")])
        let client = EndpointClient(environment: Fixture.environment, transport: transport)

        let publisher = client.publisher(for: .featuredItems)
        let sentBeforeIterating = await transport.requests.count
        _ = try await client.response(for: .item(rawID: "probe"))
        for try await _ in publisher {}

        // An eager publisher would have taken the probe's reply (failing one of the two decodes) and shown up
        // first in the recorded order.
        #expect(sentBeforeIterating == 0)
        #expect(await transport.requests.map { $0.url?.lastPathComponent } == ["probe", "featured"])
    }

    @Test("Each iteration sends a fresh request, emits one value and finishes")
    func reiterable() async throws {
        let transport = StubTransport(replies: [
            .json(#"{"items": [{"id": 1, "name": "a"}]}"#), .json(#"{"items": [{"id": 2, "name": "b"}]}"#),
        ])
        let client = EndpointClient(environment: Fixture.environment, transport: transport)
        let publisher = client.publisher(for: .search(for: "x"), using: AccessToken("t"))

        var first: [SearchResults] = []
        for try await value in publisher { first.append(value) }
        var second: [SearchResults] = []
        for try await value in publisher { second.append(value) }

        #expect(first.map { $0.items.map(\.id) } == [[1]])
        #expect(second.map { $0.items.map(\.id) } == [[2]])
        #expect(await transport.requests.count == 2)
    }

    @Test("A failing request is thrown once from the loop")
    func failure() async throws {
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: StubTransport(replies: [.status(500)])
        )
        var received = 0

        let error = try await #require(throws: EndpointError.self) {
            for try await _ in client.publisher(for: .featuredItems) { received += 1 }
        }

        #expect(error.kind == .unacceptableStatus)
        #expect(received == 0)
    }

    @Test("Cancelling the consuming task cancels the request")
    func cancellation() async throws {
        let transport = StubTransport(replies: [StubResponse.json("[]").delayed(by: .seconds(600))])
        let client = EndpointClient(environment: Fixture.environment, transport: transport)

        let consumer = Task {
            for try await _ in client.publisher(for: .featuredItems) {}
        }
        while await transport.requests.isEmpty { await Task.yield() }
        consumer.cancel()
        let result = await consumer.result

        let error = try #require(throws: EndpointError.self) { try result.get() }
        #expect(error.kind == .cancelled)
    }

    @Test("A publisher of exchange(for:) emits the value with its head per iteration, and sends nothing before")
    func sendPublisher() async throws {
        let transport = StubTransport(replies: [
            .response(
                headers: ["Link": "<p2>; rel=\"next\""],
                body: Data(#"{"items": [{"id": 1, "name": "a"}]}"#.utf8)
            ),
            .json(#"{"items": [{"id": 2, "name": "b"}]}"#),
        ])
        let client = EndpointClient(environment: Fixture.environment, transport: transport)

        let publisher = EndpointPublisher { () async throws(EndpointError) in
            try await client.exchange(for: .search(for: "x"), using: AccessToken("t"))
        }
        let sentBeforeIterating = await transport.requests.count
        var pages: [EndpointKit.Response<SearchResults>] = []
        for try await page in publisher { pages.append(page) }
        for try await page in publisher { pages.append(page) }

        #expect(sentBeforeIterating == 0)
        #expect(pages.map { $0.value.items.map(\.id) } == [[1], [2]])
        #expect(pages.map(\.statusCode) == [200, 200])
        #expect(pages.first?.headers["Link"] == "<p2>; rel=\"next\"")
        #expect(pages.last?.headers["Link"] == nil)
        #expect(await transport.requests.count == 2)
    }
}
