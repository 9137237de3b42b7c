#if AsyncHTTPClient
import EndpointKit
import EndpointKitAsyncHTTPClient
import Foundation
import Testing

/// What a broken or hostile server sends cannot make the transport return the wrong answer.
@Suite(.timeLimit(.minutes(1)))
struct HostileServerTests {
    private let transport = AsyncHTTPClientTransport()

    @Test(
        "103 Early Hints and 100 Continue before the 200 are skipped",
        arguments: ["103 Early Hints", "100 Continue"]
    )
    func informationalSkipped(status: String) async throws {
        let client = TestServers.client(try TestServers.fault(), transport)
        let bytes =
            "HTTP/1.1 \(status)\r\nLink: </style.css>; rel=preload\r\n\r\n"
            + "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nfinal"

        let body = try await client.response(for: RawResponse.endpoint(UUID().uuidString, bytes))

        #expect(body == Data("final".utf8))
    }

    @Test("An unasked-for 101 Switching Protocols fails at once as transportFailed, naming the status")
    func unsolicitedSwitchingProtocols() async throws {
        let client = TestServers.client(try TestServers.fault(), transport)
        var endpoint = RawResponse.endpoint(
            UUID().uuidString,
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
            hold: true
        )
        endpoint.timeout = .seconds(300)

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: endpoint) }

        #expect(error.kind == .transportFailed)
        #expect(error.statusCode == 101)
        #expect(error.description.contains("101 Switching Protocols"))
    }

    @Test("Bytes a server sends past Content-Length never become the next request's answer, nor the next download's")
    func bytesPastContentLength() async throws {
        // The transport drops a connection that carried extra bytes; a request the pool had already given it fails
        // as a transient transportFailed before it is sent, and is retried.
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.fault()),
            transport: transport,
            middleware: [Retry(RetryPolicy(baseDelay: .milliseconds(10), jitter: 0))]
        )
        let key = UUID().uuidString
        let smuggled =
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
            + "HTTP/1.1 200 OK\r\nContent-Length: 4\r\nContent-Type: application/octet-stream\r\n\r\nEVIL"
        let extra = Data("HTTP/1.1 200 OK\r\nContent-Length: 4\r\nETag: \"v1\"\r\n\r\nEVIL".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ek-ahc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let first = try await client.response(for: RawResponse.endpoint(key, smuggled))
        let second = try await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "echo/\(key)"))
        _ = try await client.download(
            for: Endpoint<EndpointKinds.Public, URL>(
                path: "file/\(key)/1",
                queryItems: [URLQueryItem(name: "extra", value: extra)]
            ),
            to: folder.appendingPathComponent("first.bin")
        ).result()
        let next = try await client.download(
            for: Endpoint<EndpointKinds.Public, URL>(path: "file/\(UUID().uuidString)/1"),
            to: folder.appendingPathComponent("second.bin")
        ).result()

        #expect(first == Data("hello".utf8))
        #expect(second.isEmpty, "the GET with no body was answered by the smuggled response")
        #expect(try Data(contentsOf: next.value).count == 1 << 20)
    }
}
#endif
