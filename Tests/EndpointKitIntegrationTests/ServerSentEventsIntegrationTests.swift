import EndpointKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

private struct Tally: Decodable { var count: Int }

@Suite(.timeLimit(.minutes(1)))
struct ServerSentEventsIntegrationTests {
    private func counter(_ name: String, _ key: String) async throws -> Int {
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        return try await client.response(for: Endpoint<EndpointKinds.Public, Tally>(path: "count/\(name)/\(key)")).count
    }

    @Test("Events arrive across reconnections that send Last-Event-ID, until the server answers 204")
    func reconnectsWithLastEventID() async throws {
        let key = UUID().uuidString
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))

        var received: [ServerSentEvent] = []
        for try await event in try await client.stream(
            for: Endpoint<EndpointKinds.Public, ServerSentEvents>(path: "sse/\(key)")
        ) {
            received.append(event)
        }

        #expect(
            received == [
                ServerSentEvent(data: "a", id: "1", retry: .milliseconds(50)),
                ServerSentEvent(type: "tick", data: "b\nc", id: "2"),
                ServerSentEvent(data: "d", id: "3"),
            ]
        )
        #expect(try await counter("sse", key) == 3)
        #expect(try await counter("sse-last-id-2", key) == 1)
        #expect(try await counter("sse-last-id-3", key) == 1)
    }

    @Test("An error status ends the stream with it, without reconnecting")
    func errorStatus() async throws {
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.nginx()))

        let error = try await #require(throws: EndpointError.self) {
            for try await _ in try await client.stream(
                for: Endpoint<EndpointKinds.Public, ServerSentEvents>(path: "missing-events")
            ) {}
        }

        #expect(error.kind == .unacceptableStatus)
        #expect(error.statusCode == 404)
    }

    private func events(_ testCase: String, key: String) async throws -> [ServerSentEvent] {
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        let endpoint = Endpoint<EndpointKinds.Public, ServerSentEvents>(
            path: "sse-case/\(key)",
            queryItems: [URLQueryItem(name: "case", value: testCase)]
        )
        var received: [ServerSentEvent] = []
        for try await event in try await client.stream(for: endpoint) { received.append(event) }
        return received
    }

    @Test("A stream that starts with a UTF-8 byte order mark keeps its first event")
    func byteOrderMark() async throws {
        let received = try await events("bom", key: UUID().uuidString)

        #expect(received.map(\.data) == ["first"])
    }

    @Test("After a cut in the middle of an event, the reconnection resumes from the last event delivered")
    func cutMidEventResumesBeforeIt() async throws {
        let key = UUID().uuidString

        let received = try await events("cut", key: key)

        #expect(received.map(\.data) == ["a"])
        #expect(try await counter("sse-case-last-id-1", key) == 1)
        #expect(try await counter("sse-case-last-id-2", key) == 0, "event 2 never arrived whole")
    }

    @Test("An empty id line clears the last event ID: the reconnection sends no Last-Event-ID header at all")
    func emptyIDSendsNoHeader() async throws {
        let key = UUID().uuidString

        let received = try await events("empty-id", key: key)

        #expect(received.map(\.id) == ["1", nil])
        #expect(try await counter("sse-case-no-last-id", key) == 1)
        #expect(try await counter("sse-case-last-id-", key) == 0)
    }

    @Test("An event that never ends (64 MiB of data lines, no blank line) fails with responseTooLarge, not reconnected")
    func endlessEventIsBounded() async throws {
        let key = UUID().uuidString

        let error = try await #require(throws: EndpointError.self) { _ = try await events("endless", key: key) }

        #expect(error.kind == .responseTooLarge)
        #expect(error.request?.redactedURL.contains("/sse-case/\(key)") == true)
        #expect(try await counter("sse-case", key) == 1, "a stream too large is not reconnected")
    }
}
