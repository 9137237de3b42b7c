#if AsyncHTTPClient
import EndpointKit
import EndpointKitAsyncHTTPClient
import EndpointKitTesting
import Foundation
import Testing

/// A session recorded through one transport replays through a client whose live transport is the other: every
/// answer comes from the recording, none from the network, and the values are the same.
@Suite(.timeLimit(.minutes(2)))
struct HARCrossTransportTests {
    private struct Echo: Decodable, Equatable {
        var method: String
        var data: String
    }

    /// JSON, a POST, binary, a 404, a redirect, a stream and a download: what each call gave, as text.
    private static func session(_ client: EndpointClient) async throws -> [String] {
        var seen: [String] = []
        seen.append("json \(try await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "json")).count)")
        let posted = try await client.response(
            for: Endpoint<EndpointKinds.Public, Echo>(
                method: .post,
                path: "anything/\("items")",
                body: JSONBody(["name": "tea"])
            )
        )
        seen.append("posted \(posted.method) \(posted.data)")
        seen.append(
            "png \(try await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "image/png")).count)"
        )
        let missing = try? await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "status/\(404)"))
        seen.append("404 \(missing == nil)")
        let redirected = try await client.response(
            for: Endpoint<EndpointKinds.Public, Echo>(
                path: "redirect-to",
                queryItems: [URLQueryItem(name: "url", value: "/anything/landed")]
            )
        )
        seen.append("redirected \(redirected.method)")
        var lines = 0
        for try await _ in try await client.stream(for: Endpoint<EndpointKinds.Public, Data>(path: "stream/\(3)")).lines
        {
            lines += 1
        }
        seen.append("lines \(lines)")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("cross-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        _ = try await client.download(for: Endpoint<EndpointKinds.Public, Data>(path: "bytes/\(4096)"), to: file)
            .result()
        seen.append("download \(try Data(contentsOf: file).count)")
        return seen
    }

    @Test(
        "Recorded through one transport, replayed with the other as the live one: nothing goes live, the same values",
        arguments: [true, false]
    )
    func crossReplay(recordWithAHC: Bool) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("cross-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: file) }
        let ahc = AsyncHTTPClientTransport()
        let (first, second): (any Transport, any Transport) =
            recordWithAHC ? (ahc, URLSessionTransport()) : (URLSessionTransport(), ahc)
        let environment = ServerEnvironment(baseURL: try TestServers.httpbin())
        let recorder = try HARTransport(file: file, mode: .record, live: first)
        let recorded = try await Self.session(EndpointClient(environment: environment, transport: recorder, cache: nil))
        try recorder.save()

        let replayer = try HARTransport(file: file, mode: .recordMissing, live: second)
        let replayed = try await Self.session(EndpointClient(environment: environment, transport: replayer, cache: nil))
        let before = try HARArchive(contentsOf: file).log.entries.count

        #expect(replayed == recorded)
        #expect(replayer.archive.log.entries.count == before, "a request went live instead of being replayed")
        try await ahc.shutdown()
    }
}
#endif
