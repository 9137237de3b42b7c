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
        for try await event in client.events(for: Endpoint<EndpointKinds.Public, ServerSentEvents>(path: "sse/\(key)"))
        {
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
            for try await _ in client.events(
                for: Endpoint<EndpointKinds.Public, ServerSentEvents>(path: "missing-events")
            ) {}
        }

        #expect(error.kind == .unacceptableStatus)
        #expect(error.statusCode == 404)
    }
}
