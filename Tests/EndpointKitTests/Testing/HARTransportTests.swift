import EndpointKit
import EndpointKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Recording through a stub and replaying with no transport at all: what is kept, what is never kept, and how
/// requests find their answers.
@Suite(.timeLimit(.minutes(1)))
struct HARTransportTests {
    private let file = FileManager.default.temporaryDirectory.appendingPathComponent("har-\(UUID().uuidString).har")

    private func recording(_ replies: [StubResponse]) throws -> (HARTransport, StubTransport) {
        let stub = StubTransport(replies: replies)
        return (try HARTransport(file: file, mode: .record, live: stub), stub)
    }

    @Test("A recorded session replays with no server: the same values, in the same order, for identical requests too")
    func recordThenReplay() async throws {
        defer { try? FileManager.default.removeItem(at: file) }
        let (recorder, _) = try recording([
            .json(#"{"id": 1, "name": "first"}"#), .json(#"{"id": 1, "name": "second"}"#),
            .json(#"{"items": [{"id": 2, "name": "tea"}]}"#),
        ])
        let live = EndpointClient(environment: Fixture.environment, transport: recorder, cache: nil)
        let first = try await live.response(for: .item(1))
        let second = try await live.response(for: .item(1))
        let results = try await live.response(for: .search(for: "tea"), using: AccessToken("s3cr3t-token"))
        try recorder.save()

        let replayed = EndpointClient(
            environment: Fixture.environment,
            transport: try HARTransport(file: file, mode: .replay),
            cache: nil
        )
        #expect(try await replayed.response(for: .item(1)) == first)
        #expect(try await replayed.response(for: .item(1)) == second)
        #expect(try await replayed.response(for: .search(for: "tea"), using: AccessToken("another")) == results)
        #expect(first.name == "first" && second.name == "second")
    }

    @Test("A request with no recorded answer fails at once, naming itself and the nearest recorded entries")
    func strictReplay() async throws {
        defer { try? FileManager.default.removeItem(at: file) }
        let (recorder, _) = try recording([.json(#"{"id": 1, "name": "one"}"#)])
        let live = EndpointClient(environment: Fixture.environment, transport: recorder, cache: nil)
        _ = try await live.response(for: .item(1))
        try recorder.save()
        let replayed = EndpointClient(
            environment: Fixture.environment,
            transport: try HARTransport(file: file, mode: .replay),
            cache: nil
        )

        let error = await #expect(throws: EndpointError.self) { try await replayed.response(for: .item(2)) }
        _ = try await replayed.response(for: .item(1))
        let usedUp = await #expect(throws: EndpointError.self) { try await replayed.response(for: .item(1)) }

        #expect(error?.kind == .notRecorded)
        #expect(error?.request?.description == "GET https://api.test/v1/items/2")
        #expect(error?.message.contains("nearest: GET https://api.test/v1/items/1") == true)
        // The request once, in the error's context; not again in its message.
        #expect(error?.description.components(separatedBy: "v1/items/2").count == 2)
        #expect(usedUp?.message.contains("all 1 recorded answers to it were used already") == true)
    }

    @Test("No secret is recorded: headers, query items, JSON and form fields, and a token the server echoes")
    func redaction() async throws {
        defer { try? FileManager.default.removeItem(at: file) }
        var defaults = RequestDefaults()
        defaults.sensitiveHeaders = ["X-Session"]
        let stub = StubTransport(replies: [
            .response(
                headers: ["Set-Cookie": "sid=cookie-secret-1", "Content-Type": "application/json"],
                body: Data(#"{"access_token": "issued-secret-2", "echo": "Bearer header-secret-3", "id": 7}"#.utf8)
            ),
            .json(#"{"ok": true}"#),
        ])
        let recorder = try HARTransport(file: file, mode: .record, live: stub, redaction: HARRedaction(defaults))
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: recorder,
            defaults: defaults,
            cache: nil
        )
        let json = Endpoint<EndpointKinds.Private, Data>(
            method: .post,
            path: "login",
            queryItems: [
                URLQueryItem(name: "api_key", value: "query-secret-4"), URLQueryItem(name: "page", value: "1"),
            ],
            headers: ["X-Session": "session-secret-5", "Cookie": "a=cookie-secret-6"],
            body: JSONBody(["password": "body-secret-7", "user": "ann"])
        )
        let form = Endpoint<EndpointKinds.Public, Data>(
            method: .post,
            path: "token",
            body: FormBody(["client_secret": "form-secret-8", "grant_type": "client_credentials"])
        )

        _ = try await client.response(for: json, using: AccessToken("header-secret-3"))
        _ = try await client.response(for: form)
        try recorder.save()

        let text = try String(contentsOf: file, encoding: .utf8)
        for index in 1...8 { #expect(!text.contains("secret-\(index)"), "secret \(index) was recorded") }
        let requests = try HARArchive(contentsOf: file).log.entries.map(\.request)
        #expect(requests.first?.postData?.text == #"{"password":"<redacted>","user":"ann"}"#)
        #expect(requests.last?.postData?.text == "client_secret=<redacted>&grant_type=client_credentials")
        #expect(requests.first?.queryString.map(\.value) == ["<redacted>", "1"])
    }

    @Test("A body member named key that holds no secret is recorded as it is, and replayed as the server sent it")
    func nonSecretKeyKept() async throws {
        defer { try? FileManager.default.removeItem(at: file) }
        let (recorder, endpoint) = (
            try HARTransport(
                file: file,
                mode: .record,
                live: StubTransport(replies: [.json(#"{"key": "har-retry"}"#)])
            ),
            Endpoint<EndpointKinds.Public, [String: String]>(path: "cache-entry")
        )
        _ = try await EndpointClient(environment: Fixture.environment, transport: recorder, cache: nil).response(
            for: endpoint
        )
        try recorder.save()

        let replay = try HARTransport(file: file, mode: .replay)
        let replayed = try await EndpointClient(environment: Fixture.environment, transport: replay, cache: nil)
            .response(for: endpoint)

        #expect(replayed == ["key": "har-retry"])
    }

    @Test(
        "With an API key sent as the query item key (a kind's credential names), a body's key member holding no secret is kept; the API key is replaced wherever it appears"
    )
    func queryKeyNameLeavesBodyKeys() async throws {
        defer { try? FileManager.default.removeItem(at: file) }
        let answer = #"{"entry": {"key": "har-cache-7"}, "echo": "api-secret-9"}"#
        let recorder = try HARTransport(
            file: file,
            mode: .record,
            live: StubTransport(replies: [.json(answer)]),
            redaction: HARRedaction(RequestDefaults(), adding: CredentialNames(queryItems: ["key"]))
        )
        let endpoint = Endpoint<EndpointKinds.Public, Data>(
            path: "cache-entry",
            queryItems: [URLQueryItem(name: "key", value: "api-secret-9")]
        )
        _ = try await EndpointClient(environment: Fixture.environment, transport: recorder, cache: nil)
            .response(for: endpoint)
        try recorder.save()

        let entry = try #require(try HARArchive(contentsOf: file).log.entries.first)
        #expect(entry.request.queryString.map(\.value) == ["<redacted>"])
        let recorded = try #require(entry.response.content.text)
        #expect(recorded.contains("har-cache-7"), "\(recorded)")
        #expect(!recorded.contains("api-secret-9") && recorded.contains("<redacted>"), "\(recorded)")
    }

    @Test("A retried call whose answer has a member named key that holds no secret replays as the server sent it")
    func nonSecretKeyKeptAcrossRetries() async throws {
        defer { try? FileManager.default.removeItem(at: file) }
        let endpoint = Endpoint<EndpointKinds.Public, [String: String]>(method: .post, path: "cache-entry")
        let retry = Retry(RetryPolicy(maxAttempts: 2, baseDelay: .zero, jitter: 0))
        let recorder = try HARTransport(
            file: file,
            mode: .record,
            live: StubTransport(replies: [.connectionLost(), .json(#"{"key": "har-retry", "token_hint": "none"}"#)])
        )
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: recorder,
            middleware: [IdempotencyKey(), retry],
            cache: nil
        )
        let live = try await client.response(for: endpoint)
        try recorder.save()

        let replay = try HARTransport(file: file, mode: .replay)
        let replayed = try await EndpointClient(
            environment: Fixture.environment,
            transport: replay,
            middleware: [IdempotencyKey(), retry],
            cache: nil
        ).response(for: endpoint)

        #expect(live["key"] == "har-retry")
        #expect(replayed == live)
        #expect(try String(contentsOf: file, encoding: .utf8).contains("har-retry"))
    }

    @Test("Record missing: recorded answers are replayed, a miss goes live and joins the file")
    func recordMissing() async throws {
        defer { try? FileManager.default.removeItem(at: file) }
        let (recorder, _) = try recording([.json(#"{"id": 1, "name": "recorded"}"#)])
        _ = try await EndpointClient(environment: Fixture.environment, transport: recorder, cache: nil)
            .response(for: .item(1))
        try recorder.save()
        let stub = StubTransport(replies: [.json(#"{"id": 2, "name": "live"}"#)])
        let missing = try HARTransport(file: file, mode: .recordMissing, live: stub)
        let client = EndpointClient(environment: Fixture.environment, transport: missing, cache: nil)

        let one = try await client.response(for: .item(1))
        let two = try await client.response(for: .item(2))
        try missing.save()

        #expect(one.name == "recorded" && two.name == "live")
        #expect(await stub.transportRequests.map(\.url.path) == ["/v1/items/2"])
        #expect(
            try HARArchive(contentsOf: file).log.entries.map(\.request.url) == [
                "https://api.test/v1/items/1", "https://api.test/v1/items/2",
            ]
        )
    }

    @Test(
        "A streamed body is recorded as it is read; one over the limit keeps its size, and replaying it says why it cannot"
    )
    func streamedAndLarge() async throws {
        defer { try? FileManager.default.removeItem(at: file) }
        let stub = StubTransport(replies: [
            .streamed(chunks: [Data("line 1\n".utf8), Data("line 2\n".utf8)]),
            .response(body: Data(repeating: 7, count: 2_000)),
        ])
        let recorder = try HARTransport(file: file, mode: .record, live: stub, maximumBodySize: 1_000)
        let client = EndpointClient(environment: Fixture.environment, transport: recorder, cache: nil)
        let lines = Endpoint<EndpointKinds.Public, Data>(path: "lines")
        var read: [String] = []
        for try await line in try await client.stream(for: lines).lines { read.append(line) }
        _ = try await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "large"))
        try recorder.save()

        let entries = try HARArchive(contentsOf: file).log.entries
        #expect(entries.first?.response.content.text == "line 1\nline 2\n")
        #expect(entries.last?.response.content.size == 2_000 && entries.last?.response.content.text == nil)
        let replayed = EndpointClient(
            environment: Fixture.environment,
            transport: try HARTransport(file: file, mode: .replay),
            cache: nil
        )
        var replayedLines: [String] = []
        for try await line in try await replayed.stream(for: lines).lines { replayedLines.append(line) }
        let large = await #expect(throws: EndpointError.self) {
            try await replayed.response(for: Endpoint<EndpointKinds.Public, Data>(path: "large"))
        }
        #expect(replayedLines == read && read == ["line 1", "line 2"])
        #expect(large?.kind == .notRecorded && large?.message.contains("over the recording's limit of 1000") == true)
    }

    @Test("Matching rules: an ignored query item may differ, a matched header must not")
    func matchingRules() async throws {
        defer { try? FileManager.default.removeItem(at: file) }
        let (recorder, _) = try recording([.json(#"{"id": 1, "name": "one"}"#)])
        var endpoint = Endpoint<EndpointKinds.Public, Item>(
            path: "items/\(1)",
            queryItems: [URLQueryItem(name: "ts", value: "100")]
        )
        endpoint.headers = ["Accept-Language": "en"]
        _ = try await EndpointClient(environment: Fixture.environment, transport: recorder, cache: nil).response(
            for: endpoint
        )
        try recorder.save()
        let matching = HARMatching(ignoredQueryItems: ["ts"], matchedHeaders: ["Accept-Language"])
        let replay = EndpointClient(
            environment: Fixture.environment,
            transport: try HARTransport(file: file, mode: .replay, matching: matching),
            cache: nil
        )
        endpoint.queryItems = [URLQueryItem(name: "ts", value: "200")]
        var french = endpoint
        french.headers = ["Accept-Language": "fr"]

        let error = await #expect(throws: EndpointError.self) { try await replay.response(for: french) }
        let item = try await replay.response(for: endpoint)

        #expect(error?.kind == .notRecorded)
        #expect(item.name == "one")
    }
}
