import EndpointKit
import Foundation
import Testing

/// A 1xx response is never the answer: a transport skips it, and an unasked-for `101` is an error at once.
@Suite(.timeLimit(.minutes(1)))
struct InformationalResponseIntegrationTests {
    @Test(
        "103 Early Hints, then 200: the call returns the 200 and its body",
        arguments: ["103 Early Hints", "100 Continue"]
    )
    func earlyHintsSkipped(status: String) async throws {
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        let bytes =
            "HTTP/1.1 \(status)\r\nLink: </style.css>; rel=preload\r\n\r\n"
            + "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nfinal"

        let body = try await client.response(for: RawResponse.endpoint(UUID().uuidString, bytes))

        #expect(body == Data("final".utf8))
    }

    @Test("An unasked-for 101 Switching Protocols fails at once as transportFailed, naming the status")
    func unsolicitedSwitchingProtocols() async throws {
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        var endpoint = RawResponse.endpoint(
            UUID().uuidString,
            // A WebSocket text frame follows, as a server that switched would send; Linux URLSession reports the 101
            // head only once something follows it (or its idle timeout passes).
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n\u{81}\u{2}hi",
            hold: true
        )
        // Far longer than the test may take: an error that came from this timeout would fail the time limit.
        endpoint.timeout = .seconds(300)

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: endpoint) }

        #expect(error.kind == .transportFailed)
        #expect(error.statusCode == 101)
        #expect(error.description.contains("101 Switching Protocols"))
    }
}
