#if AsyncHTTPClient
import EndpointKit
import EndpointKitAsyncHTTPClient
import Foundation
import Testing

private struct AuthorizationEcho: Decodable {
    var authorization: String
    var `protocol`: String
}

/// AsyncHTTPClient negotiates HTTP/2 over TLS: EndpointKit's calls work the same on it.
@Suite(.timeLimit(.minutes(1)))
struct HTTP2Tests {
    private let transport = AsyncHTTPClientTransport()

    @Test("A private endpoint goes over HTTP/2 with its token")
    func tokenOverHTTP2() async throws {
        let client = TestServers.client(try TestServers.http2(), transport)

        let echo = try await client.response(
            for: Endpoint<EndpointKinds.Private, AuthorizationEcho>(path: "authorization"),
            using: AccessToken("s3cr3t")
        )

        #expect(echo.protocol == "HTTP/2.0")
        #expect(echo.authorization == "Bearer s3cr3t")
    }

    @Test("A streamed upload and a streamed read of 8 MiB over HTTP/2 arrive byte for byte")
    func largeBodiesOverHTTP2() async throws {
        let client = TestServers.client(try TestServers.http2(), transport)
        // A 251-byte period (prime, so no chunk boundary lines up with it), without a closure call per byte.
        let period = Data((0..<251).map { UInt8(($0 * 31 + 7) % 251) })
        var pattern = Data(capacity: 8 << 20 + 251)
        while pattern.count < 8 << 20 { pattern.append(period) }
        let bytes = pattern
        let path = EndpointPath(stringLiteral: "uploads/ahc-h2-\(UUID().uuidString)")

        _ = try await client.response(
            for: Endpoint<EndpointKinds.Public, EmptyResponse>(
                method: .put,
                path: path,
                body: StreamBody { InputStream(data: bytes) }
            )
        )
        let stream = try await client.stream(for: Endpoint<EndpointKinds.Public, Data>(path: path))
        var received = Data()
        var chunks = 0
        for try await chunk in stream.body {
            received.append(chunk)
            chunks += 1
        }

        #expect(received == bytes)
        #expect(chunks > 1)
    }
}
#endif
