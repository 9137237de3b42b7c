#if AsyncHTTPClient
import EndpointKit
import EndpointKitAsyncHTTPClient
import Foundation
import Testing

/// A port outside 1–65535 never reaches AsyncHTTPClient, which would stop the process for an IP literal and
/// connect to a truncated port for a host name.
@Suite(.timeLimit(.minutes(1)))
struct PortTests {
    private let transport = AsyncHTTPClientTransport()

    @Test(
        "The transport called directly refuses a port outside 1–65535 as invalidRequest",
        arguments: [
            "http://127.0.0.1:70000/", "http://[::1]:70000/", "http://localhost:70000/",
            "http://localhost:99999999999999999999/", "http://127.0.0.1:0/",
        ]
    )
    func directSend(url: String) async throws {
        let request = TransportRequest(method: .get, url: try #require(URL(string: url)))

        let error = try await #require(throws: EndpointError.self) {
            try await transport.send(request, options: TransportOptions(timeout: .seconds(5)))
        }

        #expect(error.kind == .invalidRequest)
    }

    @Test(
        "A server's redirect to port 70000 is refused, typed and naming its Location, instead of stopping the process",
        arguments: ["http://127.0.0.1:70000/", "http://[::1]:70000/", "http://localhost:70000/"]
    )
    func hostileRedirect(location: String) async throws {
        let client = TestServers.client(try TestServers.fault(), transport)
        let endpoint = RawResponse.endpoint(
            UUID().uuidString,
            "HTTP/1.1 302 Found\r\nLocation: \(location)\r\nContent-Length: 0\r\n\r\n"
        )

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: endpoint) }

        #expect(error.kind == .redirectRefused)
        #expect(error.description.contains(":70000"))
    }
}
#endif
