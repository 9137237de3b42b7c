import EndpointKit
import Foundation
import Testing

/// A server that sends more than it announced cannot make the next request on the same client read those bytes
/// as its answer.
@Suite(.timeLimit(.minutes(1)))
struct HostileServerIntegrationTests {
    private static let smuggled =
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
        + "HTTP/1.1 200 OK\r\nContent-Length: 4\r\nContent-Type: application/octet-stream\r\n\r\nEVIL"

    @Test("Bytes past Content-Length do not become the next request's response")
    func bytesPastContentLength() async throws {
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        let key = UUID().uuidString

        let first = try await client.response(for: RawResponse.endpoint(key, Self.smuggled))
        let second = try await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "echo/\(key)"))

        #expect(first == Data("hello".utf8))
        #expect(second != Data("EVIL".utf8), "the next request read the smuggled response")
    }

    @Test("A download followed by bytes past its Content-Length does not poison the next download on the client")
    func downloadPastContentLength() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ek-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        let extra = RawResponse.query(
            "HTTP/1.1 200 OK\r\nContent-Length: 4\r\nETag: \"v1\"\r\nContent-Type: application/octet-stream\r\n\r\nEVIL"
        )[0]
        let poisoning = Endpoint<EndpointKinds.Public, URL>(
            path: "file/\(UUID().uuidString)/1",
            queryItems: [URLQueryItem(name: "extra", value: extra.value)]
        )
        let next = Endpoint<EndpointKinds.Public, URL>(path: "file/\(UUID().uuidString)/1")

        let first = try await client.download(for: poisoning, to: folder.appendingPathComponent("first.bin")).result()
        let second = try await client.download(for: next, to: folder.appendingPathComponent("second.bin")).result()
        let secondBytes = try Data(contentsOf: second.value)

        #expect(try Data(contentsOf: first.value).count == 1 << 20)
        #expect(secondBytes.count == 1 << 20, "the next download got \(secondBytes.count) bytes")
        #expect(secondBytes != Data("EVIL".utf8))
    }
}
