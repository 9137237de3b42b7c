import EndpointKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

private struct Tally: Decodable { var count: Int }

private struct Tick: Decodable, Equatable { var index: Int }

/// Streamed bodies against the fault server's `/jsonl`, which sends each line only when the test releases it.
@Suite(.timeLimit(.minutes(1)))
struct StreamingIntegrationTests {
    private let counters = Result { EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault())) }

    private func counter(_ name: String, _ key: String) async throws -> Int {
        try await counters.get().response(for: Endpoint<EndpointKinds.Public, Tally>(path: "count/\(name)/\(key)"))
            .count
    }

    private func release(_ key: String) async throws {
        _ = try await counters.get().response(for: Endpoint<EndpointKinds.Public, Data>(path: "release/\(key)"))
    }

    @Test("JSON Lines arrive one by one as the server sends them, each before the next is sent")
    func linesArriveAsSent() async throws {
        let key = UUID().uuidString
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))

        let stream = try await client.stream(for: Endpoint<EndpointKinds.Public, Data>(path: "jsonl/\(key)/4"))
        var received: [Tick] = []
        var sentWhenReceived: [Int] = []
        for try await tick in stream.jsonLines(of: Tick.self) {
            received.append(tick)
            sentWhenReceived.append(try await counter("jsonl-sent", key))
            try await release(key)
        }

        #expect(stream.statusCode == 200)
        #expect(received == (0..<4).map(Tick.init))
        #expect(sentWhenReceived == [1, 2, 3, 4], "each line arrived before the server sent the next")
    }

    @Test("Leaving the loop mid-stream closes the connection: the server sees it")
    func leavingClosesTheConnection() async throws {
        let key = UUID().uuidString
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))

        let stream = try await client.stream(for: Endpoint<EndpointKinds.Public, Data>(path: "jsonl/\(key)/4"))
        for try await line in stream.lines {
            #expect(line == #"{"index": 0}"#)
            break
        }
        _ = try await counters.get().response(
            for: Endpoint<EndpointKinds.Public, Tally>(path: "await/jsonl-closed/\(key)")
        )

        #expect(try await counter("jsonl-closed", key) == 1)
        #expect(try await counter("jsonl-sent", key) == 1)
    }

    @Test("A stream outlasts the endpoint's total deadline, which covers only the wait for the head")
    func deadlineCoversTheHeadOnly() async throws {
        let key = UUID().uuidString
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        var endpoint = Endpoint<EndpointKinds.Public, Data>(
            path: "jsonl/\(key)/2",
            queryItems: [URLQueryItem(name: "delay-ms", value: "1500")]
        )
        endpoint.timeout = .seconds(1)

        let stream = try await client.stream(for: endpoint)
        var ticks: [Tick] = []
        for try await tick in stream.jsonLines(of: Tick.self) { ticks.append(tick) }

        #expect(ticks.map(\.index) == [0, 1])
    }

    @Test("A line that is not the declared type fails with decodingFailed and its line number")
    func badLine() async throws {
        struct Named: Decodable { var name: String }
        let key = UUID().uuidString
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))

        let stream = try await client.stream(for: Endpoint<EndpointKinds.Public, Data>(path: "jsonl/\(key)/1"))
        let error = try await #require(throws: EndpointError.self) {
            for try await _ in stream.jsonLines(of: Named.self) {}
        }

        #expect(error.kind == .decodingFailed)
        #expect(error.message.contains("line 1"))
        #expect(error.request?.redactedURL.hasSuffix("/jsonl/\(key)/1") == true, "a stream's error names its request")
    }

    @Test("A reader that falls further behind the server than the size limit fails with responseTooLarge")
    func readerFallsBehind() async throws {
        let key = UUID().uuidString
        var defaults = RequestDefaults()
        defaults.maximumResponseSize = 1 << 20
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.fault()),
            defaults: defaults
        )

        // A paced server (64 KiB every 2 ms), so that URLSession's delegate keeps up and the backlog builds in
        // EndpointKit's buffer; against a fast one it can instead wait in URLSession's delegate queue, out of
        // reach, and reach a reader that starts waiting later one chunk at a time.
        let stream = try await client.stream(
            for: Endpoint<EndpointKinds.Public, Data>(
                path: "file/\(key)/16",
                queryItems: [URLQueryItem(name: "pace", value: "1")]
            )
        )
        // Nothing is read until the server is done with the answer: the connection closed by the backlog passing the
        // limit, or, on a loaded machine where URLSession's delegate fell behind, the whole 16 MiB sent. Either way
        // more than the limit is behind the reader.
        _ = try await counters.get().response(
            for: Endpoint<EndpointKinds.Public, Tally>(path: "await/file-over/\(key)")
        )
        let error = try await #require(throws: EndpointError.self) {
            for try await _ in stream.body {}
        }

        #expect(error.kind == .responseTooLarge)
        #expect(error.message.contains("fell more than \(1 << 20) bytes behind"))
    }

    @Test("A stream gets the pipeline before its first byte: a 401 refreshes the token and the call is replayed")
    func refreshBeforeTheStream() async throws {
        let auth = BearerAuthentication(token: { AccessToken("stale") }, refresh: { _ in AccessToken("fresh") })
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.nginx()),
            middleware: [auth]
        )

        let stream = try await client.stream(for: Endpoint<EndpointKinds.Authenticated, Data>(path: "protected"))
        var lines: [String] = []
        for try await line in stream.lines { lines.append(line) }

        #expect(stream.statusCode == 200)
        #expect(stream.attempts == 2)
        #expect(lines == [#"{"id": 1, "name": "protected"}"#])
        #expect(await auth.refreshCount == 1)
    }

    @Test("A stream is retried before its first byte (a rate limit's reset), never after it (a body cut short)")
    func retriedOnlyBeforeTheFirstByte() async throws {
        let key = UUID().uuidString
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.fault()),
            middleware: [Retry(RetryPolicy(baseDelay: .milliseconds(10), jitter: 0, rateLimitReset: .github))]
        )

        let limited = try await client.stream(for: Endpoint<EndpointKinds.Public, Data>(path: "ratelimit/\(key)"))
        var lines: [String] = []
        for try await line in limited.lines { lines.append(line) }
        let cut = try await client.stream(for: Endpoint<EndpointKinds.Public, Data>(path: "truncated/\(key)"))
        var received = 0
        let error = try await #require(throws: EndpointError.self) {
            for try await chunk in cut.body { received += chunk.count }
        }

        #expect(limited.attempts == 2)
        #expect(lines == [#"{"id": 1, "name": "ok"}"#])
        #expect(cut.attempts == 1)
        #expect(received == 10, "the bytes before the cut, and no others sent again after them")
        #expect(error.kind == .transportFailed)
        #expect(error.request?.redactedURL.contains("/truncated/\(key)") == true, "a stream's error names its request")
        #expect(try await counter("truncated", key) == 1)
    }

    @Test("A stream behind a cross-origin redirect is read from there, without the token")
    func crossOriginRedirect() async throws {
        let key = UUID().uuidString
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))

        let stream = try await client.stream(
            for: Endpoint<EndpointKinds.Private, Data>(path: "file-redirect/\(key)/1"),
            using: AccessToken("s3cr3t")
        )
        var received = 0
        for try await chunk in stream.body { received += chunk.count }

        #expect(stream.url?.host == "localhost")
        #expect(received == 1 << 20)
        #expect(try await counter("file", key) == 1)
        #expect(try await counter("file-auth", key) == 0)
    }

    @Test("An error status fails before the stream, with its status and body")
    func errorStatus() async throws {
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.nginx()))

        let error = try await #require(throws: EndpointError.self) {
            _ = try await client.stream(for: Endpoint<EndpointKinds.Public, Data>(path: "missing.jsonl"))
        }

        #expect(error.kind == .unacceptableStatus)
        #expect(error.statusCode == 404)
        #expect(error.bodySnippet?.contains("404") == true)
    }
}
