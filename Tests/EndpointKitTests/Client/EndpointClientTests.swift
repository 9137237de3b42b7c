import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(1))) struct EndpointClientTests {
    @Test("A private endpoint sends its token as a Bearer header")
    func privateEndpointSendsBearerToken() async throws {
        let transport = StubTransport(replies: [.json(#"{"items": []}"#)])
        let client = EndpointClient(environment: Fixture.environment, transport: transport)

        _ = try await client.response(for: .search(for: "tea"), using: AccessToken("s3cret"))

        let sent = try #require(await transport.requests.first)
        #expect(sent.value(forHTTPHeaderField: "Authorization") == "Bearer s3cret")
        #expect(sent.url?.absoluteString == "https://api.test/v1/search?q=tea")
    }

    @Test("A POST sends its JSON body and decodes the created model")
    func postWithBody() async throws {
        let transport = StubTransport(replies: [.json(#"{"id": 10, "name": "Tea"}"#, status: 201)])
        let client = EndpointClient(environment: Fixture.environment, transport: transport)

        let created = try await client.response(
            for: .createItem(NewItem(name: "Tea", createdAt: Date(timeIntervalSince1970: 0))),
            using: AccessToken("t")
        )

        #expect(created == Item(id: 10, name: "Tea"))
        let sent = try #require(await transport.requests.first)
        #expect(sent.httpMethod == "POST")
        let body = try #require(sent.httpBody)
        #expect(try JSONDecoder().decode(NewItem.self, from: body).name == "Tea")
    }

    @Test("Pointing a copy of the client at another environment leaves endpoints unchanged")
    func switchEnvironment() async throws {
        let transport = StubTransport(replies: [.json("[]"), .json("[]")])
        let production = EndpointClient(environment: Fixture.environment, transport: transport)
        var staging = production
        staging.environment = ServerEnvironment(baseURL: try #require(URL(string: "https://staging.api.test/v2")))

        _ = try await production.response(for: .featuredItems)
        _ = try await staging.response(for: .featuredItems)

        let urls = await transport.requests.map { $0.url?.absoluteString }
        #expect(urls == ["https://api.test/v1/featured", "https://staging.api.test/v2/featured"])
    }

    @Test("A task cancelled before sending sends nothing and throws cancelled")
    func cancelledBeforeSending() async throws {
        let transport = StubTransport(replies: [.json("[]")])
        let client = EndpointClient(environment: Fixture.environment, transport: transport)

        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.response(for: .featuredItems)
        }
        let result = await task.result

        let error = try #require(throws: EndpointError.self) { try result.get() }
        #expect(error.kind == .cancelled)
        #expect(await transport.requests.isEmpty)
    }

    @Test("Cancelling a request in flight throws cancelled without waiting for the reply")
    func cancelInFlight() async throws {
        let transport = StubTransport(replies: [StubResponse.json("[]").delayed(by: .seconds(600))])
        let client = EndpointClient(environment: Fixture.environment, transport: transport)

        let task = Task { try await client.response(for: .featuredItems) }
        while await transport.requests.isEmpty { await Task.yield() }
        task.cancel()
        let result = await task.result

        let error = try #require(throws: EndpointError.self) { try result.get() }
        #expect(error.kind == .cancelled)
    }

    @Test("The raw response is returned whatever the status, read as Data with validation off")
    func rawResponse() async throws {
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: StubTransport(replies: [.json(#"{"e": 1}"#, status: 418)])
        )
        var raw = Endpoint.item(1).decoding(as: Data.self)
        raw.options.isValidated = false

        let response = try await client.exchange(for: raw)

        #expect(response.statusCode == 418)
        #expect(response.value == Data(#"{"e": 1}"#.utf8))
    }

    @Test("Replies queued later answer later requests in order")
    func enqueuedReplies() async throws {
        let transport = StubTransport(replies: [.json("[]")])
        let client = EndpointClient(environment: Fixture.environment, transport: transport)

        _ = try await client.response(for: .featuredItems)
        await transport.enqueue(.json(#"[{"id": 1, "name": "a"}]"#), .status(503))
        let second = try await client.response(for: .featuredItems)
        let error = try await #require(throws: EndpointError.self) { try await client.response(for: .featuredItems) }

        #expect(second.map(\.id) == [1])
        #expect(error.statusCode == 503)
    }

    @Test(
        "An unexpected request to the stub records a test issue naming it, even when the code under test swallows the error"
    )
    func unexpectedRequest() async throws {
        let client = EndpointClient(environment: Fixture.environment, transport: StubTransport(replies: []))

        var thrown: EndpointError?
        await withKnownIssue {
            do {
                _ = try await client.response(for: .item(5))
            } catch let error as EndpointError {
                thrown = error  // swallowed, as careless code under test would
            } catch {
                Issue.record("the client threw \(error), not an EndpointError")
            }
        } matching: { issue in
            issue.description.contains("unexpected request GET https://api.test/v1/items/5")
        }

        let error = try #require(thrown)
        #expect(error.kind == .transportFailed)
        #expect("\(error.underlyingError.map { "\($0)" } ?? "")".contains("GET https://api.test/v1/items/5"))
    }
}
