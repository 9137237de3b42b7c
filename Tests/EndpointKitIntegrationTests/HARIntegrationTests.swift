import EndpointKit
import EndpointKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Real traffic recorded to HAR: what independent readers make of it, that it holds no secret, and that it
/// replays with no server.
@Suite(.timeLimit(.minutes(3)))
struct HARIntegrationTests {
    private static func temporaryFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("har-\(UUID().uuidString).har")
    }

    /// A session of everyday calls: JSON, a POST, a binary body, a redirect, a 404, a stream, a download.
    private static func session(_ client: EndpointClient, scratch: URL) async throws -> [String] {
        var seen: [String] = []
        let json = try await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "json"))
        seen.append("json \(json.count)")
        let posted = try await client.response(
            for: Endpoint<EndpointKinds.Private, AnythingEcho>(
                method: .post,
                path: "anything/\("items")",
                body: JSONBody(["name": "tea"])
            ),
            using: AccessToken("session-secret-token")
        )
        seen.append("posted \(posted.json.map { "\($0)" } ?? "nil")")
        let png = try await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "image/png"))
        seen.append("png \(png.prefix(4).map { $0 })")
        let redirected = try await client.response(
            for: Endpoint<EndpointKinds.Public, AnythingEcho>(
                path: "redirect-to",
                queryItems: [URLQueryItem(name: "url", value: "/anything/landed")]
            )
        )
        seen.append("redirected \(redirected.method)")
        let missing = try? await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "status/\(404)"))
        seen.append("404 \(missing == nil)")
        var lines = 0
        for try await _ in try await client.stream(for: Endpoint<EndpointKinds.Public, Data>(path: "stream/\(3)")).lines
        { lines += 1 }
        seen.append("lines \(lines)")
        let destination = scratch.appendingPathComponent("bytes-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: destination) }
        _ = try await client.download(for: Endpoint<EndpointKinds.Public, Data>(path: "bytes/\(2048)"), to: destination)
            .result()
        seen.append("download \(try Data(contentsOf: destination).count)")
        return seen
    }

    @Test(
        "A recorded session is valid HAR 1.2 to jsonschema, haralyzer and mitmproxy, and replays the same with no server"
    )
    func recordValidateReplay() async throws {
        let file = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let recorder = try HARTransport(file: file, mode: .record, live: URLSessionTransport())
        let environment = ServerEnvironment(baseURL: try TestServers.httpbin())
        let recorded = try await Self.session(
            EndpointClient(environment: environment, transport: recorder, cache: nil),
            scratch: FileManager.default.temporaryDirectory
        )
        try recorder.save()

        let output = String(
            decoding: try await Shell.output(of: "scripts/validate-har.py '\(file.path)'"),
            as: UTF8.self
        )
        let replayed = try await Self.session(
            EndpointClient(
                environment: environment,
                transport: try HARTransport(file: file, mode: .replay),
                cache: nil
            ),
            scratch: FileManager.default.temporaryDirectory
        )

        #expect(output.contains("valid (HAR 1.2 schema, haralyzer, mitmproxy)"), "\(output)")
        #expect(replayed == recorded)
        #expect(!(try String(contentsOf: file, encoding: .utf8)).contains("session-secret-token"))
    }

    @Test("1,000 fuzzed calls recorded hold no secret, and the recording is valid HAR (seeded)")
    func fuzzedSecrets() async throws {
        let seed =
            ProcessInfo.processInfo.environment["EK_HAR_SEED"].flatMap { UInt64($0) }
            ?? 20_261_127
        print("HARIntegrationTests.fuzzedSecrets seed \(seed) (rerun with EK_HAR_SEED=\(seed))")
        var generator = SeededGenerator(seed: seed)
        let file = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        var defaults = RequestDefaults()
        defaults.sensitiveHeaders = ["X-Session"]
        defaults.sensitiveQueryNames = ["visa"]
        let recorder = try HARTransport(
            file: file,
            mode: .record,
            live: URLSessionTransport(),
            redaction: HARRedaction(defaults)
        )
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.fault()),
            transport: recorder,
            defaults: defaults,
            cache: nil
        )
        var secrets: [String] = []
        for index in 0..<1_000 {
            let values = (0..<8).map { _ in FuzzedSecret.make(&generator) }
            secrets += values
            _ = try? await client.response(
                for: FuzzedSecret.endpoint(values, index: index, using: &generator),
                using: AccessToken(values[6])
            )
        }
        try recorder.save()

        let text = try String(contentsOf: file, encoding: .utf8)
        let words = Set(text.split { !$0.isLetter && !$0.isNumber }.map(String.init))
        let found = secrets.filter { words.contains($0) }
        #expect(try HARArchive(contentsOf: file).log.entries.count == 1_000)
        #expect(found.isEmpty, "seed \(seed): \(found.count) secrets recorded, e.g. \(found.prefix(3))")
        #expect(!words.contains { $0.contains("Zq") }, "seed \(seed): a secret's marker was recorded")
        let output = String(
            decoding: try await Shell.output(of: "scripts/validate-har.py '\(file.path)'"),
            as: UTF8.self
        )
        #expect(output.contains("1000 entries valid"), "\(output)")
    }

    @Test("HARTransport passes TransportConformance while recording, and replaying what it recorded")
    func conformance() async throws {
        let file = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        // The checks send 4 MiB and read it back: it is recorded whole to be replayed whole.
        let recorder = try HARTransport(
            file: file,
            mode: .record,
            live: URLSessionTransport(),
            maximumBodySize: 8 << 20
        )
        let recording = await TransportConformance.check(recorder, httpbinURL: try TestServers.httpbin())
        try recorder.save()
        // The checks send random bytes each run: the replay matches by method and URL, in recorded order.
        let replaying = await TransportConformance.check(
            try HARTransport(file: file, mode: .replay, matching: HARMatching(matchesBody: false)),
            httpbinURL: try TestServers.httpbin()
        )

        #expect(recording.isEmpty, "\(recording)")
        #expect(replaying.isEmpty, "\(replaying)")
    }
}

/// Secrets everywhere a caller can put them, for the recording fuzz.
enum FuzzedSecret {
    struct Credentials: Encodable {
        var password: String
        var nested: [String: String]
        var name: String
    }

    /// A marker no URL, key or status holds, then random letters and digits.
    static func make(_ generator: inout SeededGenerator) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let count = Int.random(in: 10...24, using: &generator)
        return "Zq" + String((0..<count).map { _ in alphabet.randomElement(using: &generator) ?? "x" })
    }

    /// A POST to the fault server's echo (which sends the body back) carrying `values` in the query, headers,
    /// a JSON or form body, and echoed text.
    static func endpoint(_ values: [String], index: Int, using generator: inout SeededGenerator)
        -> Endpoint<EndpointKinds.Private, Data>
    {
        let body: any RequestBody =
            Bool.random(using: &generator)
            ? JSONBody(
                FuzzedSecret.Credentials(
                    password: values[5],
                    nested: ["client_secret": values[7]],
                    name: "item \(index)"
                )
            )
            : FormBody(["password": values[5], "refresh_token": values[7], "name": "item \(index)"])
        return Endpoint(
            method: .post,
            path: "echo/\("har-fuzz")",
            queryItems: [
                URLQueryItem(
                    name: ["token", "api_key", "access_token", "sig"].randomElement(using: &generator) ?? "token",
                    value: values[0]
                ),
                URLQueryItem(name: "visa", value: values[1]),
                URLQueryItem(name: "page", value: "\(index)"),
            ],
            headers: ["X-Session": values[2], "Cookie": "sid=\(values[3])", "X-API-Key": values[4]],
            body: body
        )
    }
}
