import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

@Suite(.timeLimit(.minutes(1))) struct ResponseDecodingTests {
    func client(_ reply: StubResponse, envelope: ResponseEnvelope = .plain) -> EndpointClient {
        EndpointClient(
            environment: Fixture.environment,
            transport: StubTransport(replies: [reply]),
            envelope: envelope
        )
    }

    @Test("A plain body decodes to the response type")
    func plainBody() async throws {
        let items = try await client(.json(#"[{"id": 1, "name": "Tea"}]"#)).response(for: .featuredItems)

        #expect(items == [Item(id: 1, name: "Tea")])
    }

    @Test("The networkResponse envelope is unwrapped")
    func envelope() async throws {
        let reply = StubResponse.json(#"{"result": [{"id": 1, "name": "Tea"}]}"#)

        let items = try await client(reply, envelope: .networkResponse).response(for: .featuredItems)

        #expect(items == [Item(id: 1, name: "Tea")])
    }

    @Test("The envelope key can be configured")
    func customKey() async throws {
        let reply = StubResponse.json(#"{"data": {"id": 2, "name": "Mug"}, "meta": {}}"#)

        let item = try await client(reply, envelope: .networkResponse(key: "data")).response(for: .item(2))

        #expect(item == Item(id: 2, name: "Mug"))
    }

    @Test("An endpoint can opt out of the client's envelope")
    func endpointOptOut() async throws {
        var endpoint = Endpoint.item(3)
        endpoint.envelope = .plain

        let item = try await client(.json(#"{"id": 3, "name": "Pot"}"#), envelope: .networkResponse)
            .response(for: endpoint)

        #expect(item == Item(id: 3, name: "Pot"))
    }

    @Test("An endpoint can name a different envelope key than the client")
    func endpointKey() async throws {
        var endpoint = Endpoint.item(4)
        endpoint.envelope = .networkResponse(key: "payload")

        let item = try await client(.json(#"{"payload": {"id": 4, "name": "Cup"}}"#), envelope: .networkResponse)
            .response(for: endpoint)

        #expect(item == Item(id: 4, name: "Cup"))
    }

    @Test("A missing envelope key fails at coding path result, never decodes to an empty model")
    func missingResult() async throws {
        let error = try await #require(throws: EndpointError.self) {
            try await client(.json(#"{"error": "nope"}"#), envelope: .networkResponse).response(for: .featuredItems)
        }

        #expect(error.kind == .decodingFailed)
        #expect(error.codingPath == "result")
        #expect(error.bodySnippet == #"{"error": "nope"}"#)
    }

    @Test("A type mismatch reports the full coding path")
    func typeMismatchPath() async throws {
        let body = #"{"result": {"items": [{"id": 1, "name": "a"}, {"id": "two", "name": "b"}]}}"#

        let error = try await #require(throws: EndpointError.self) {
            try await client(.json(body), envelope: .networkResponse)
                .response(for: .search(for: "x"), using: AccessToken("t"))
        }

        #expect(error.kind == .decodingFailed)
        #expect(error.codingPath == "result.items[1].id")
        #expect(error.statusCode == 200)
        #expect(error.request?.description == "GET https://api.test/v1/search?q=x")
        #expect(error.underlyingError is DecodingError)
    }

    @Test("Invalid JSON is a decodingFailed error with the body snippet")
    func invalidJSON() async throws {
        let error = try await #require(throws: EndpointError.self) {
            try await client(.response(body: Data("<html>oops</html>".utf8))).response(for: .featuredItems)
        }

        #expect(error.kind == .decodingFailed)
        #expect(error.bodySnippet == "<html>oops</html>")
    }

    @Test("A 204 decodes to EmptyResponse")
    func noContent() async throws {
        let response = try await client(.status(204)).response(for: .deleteItem(1), using: AccessToken("t"))

        #expect(response == EmptyResponse())
    }

    @Test("EmptyResponse ignores a body, and ignores the envelope")
    func emptyResponseWithBody() async throws {
        let response = try await client(.json(#"{"deleted": true}"#), envelope: .networkResponse)
            .response(for: .deleteItem(1), using: AccessToken("t"))

        #expect(response == EmptyResponse())
    }

    @Test("An empty body for a type that needs content is a decodingFailed error that says so")
    func emptyBodyForModel() async throws {
        let error = try await #require(throws: EndpointError.self) {
            try await client(.status(200)).response(for: .item(1))
        }

        #expect(error.kind == .decodingFailed)
        #expect(error.message.contains("empty"))
    }

    @Test("The client's decoder settings apply, and the caller's decoder is left untouched")
    func decoderSettings() async throws {
        struct Stamp: Decodable, Sendable { var createdAt: Date }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: StubTransport(replies: [.json(#"{"result": {"created_at": 86400}}"#)]),
            envelope: .networkResponse(key: "result"),
            defaults: RequestDefaults(decoder: decoder)
        )

        let stamp = try await client.response(for: Endpoint<EndpointKinds.Public, Stamp>(path: "stamp"))

        #expect(stamp.createdAt == Date(timeIntervalSince1970: 86400))
        #expect(decoder.userInfo.isEmpty)
    }

    @Test("NetworkResponse decodes on its own with a plain JSONDecoder")
    func networkResponseStandalone() throws {
        let data = Data(#"{"result": {"id": 9, "name": "Bowl"}}"#.utf8)

        let envelope = try JSONDecoder().decode(NetworkResponse<Item>.self, from: data)

        #expect(envelope.result == Item(id: 9, name: "Bowl"))
    }

    @Test(
        "Under convertFromSnakeCase, a decoding failure names the field as the body spells it, in its description too",
        arguments: [
            (#"{"full_name": "a/b"}"#, "stargazers_count"),
            (#"{"full_name": "a/b", "stargazers_count": "many"}"#, "stargazers_count"),
            (#"{"full_name": 3, "stargazers_count": 1}"#, "full_name"),
        ]
    )
    func wireKeyNamed(body: String, field: String) async throws {
        struct Repository: Decodable, Sendable {
            var fullName: String
            var stargazersCount: Int
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: StubTransport(replies: [.json(body)]),
            defaults: RequestDefaults(decoder: decoder)
        )

        let error = try await #require(throws: EndpointError.self) {
            try await client.response(for: Endpoint<EndpointKinds.Public, Repository>(path: "repo"))
        }

        #expect(error.codingPath == field)
        #expect(error.localizedDescription.contains(field), "\(error.localizedDescription)")
    }

    @Test(
        "Names convertFromSnakeCase makes become the snake_case keys it read them from",
        arguments: [
            ("stargazersCount", "stargazers_count"), ("htmlUrl", "html_url"), ("id", "id"),
            ("item2Name", "item2_name"), ("createdAtUtc", "created_at_utc"),
        ]
    )
    func snakeCase(name: String, wire: String) {
        #expect(DecodingError.snakeCase(name) == wire)
    }
}
