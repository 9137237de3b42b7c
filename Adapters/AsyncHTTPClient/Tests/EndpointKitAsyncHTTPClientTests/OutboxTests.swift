#if AsyncHTTPClient
import EndpointKit
import EndpointKitAsyncHTTPClient
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The outbox through AsyncHTTPClient as through URLSession: writes queued while the server is down are sent in
/// order when it returns, each once though answers are lost; a refusal rolls back; a restart shows pending writes
/// again and sends them with their keys.
@Suite("Outbox over AsyncHTTPClient", .timeLimit(.minutes(2)))
struct OutboxTests {
    struct Note: Codable, Identifiable, Sendable, Equatable {
        var id: String
        var text: String
    }

    private let transport = AsyncHTTPClientTransport()
    private let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)")
    private let key = "ahc-outbox-\(UUID().uuidString)"

    private func client(_ server: URL) -> EndpointClient {
        var defaults = RequestDefaults()
        defaults.timeout = .seconds(5)
        return EndpointClient(environment: ServerEnvironment(baseURL: server), transport: transport, defaults: defaults)
    }

    private func outbox(_ server: URL) throws -> Outbox<EndpointKinds.Public> {
        var policy = OutboxPolicy()
        policy.initialBackoff = .milliseconds(20)
        policy.maximumBackoff = .milliseconds(100)
        return try Outbox(directory: directory, client: client(server), policy: policy)
    }

    private func save(_ note: Note, _ query: [URLQueryItem] = []) -> Endpoint<EndpointKinds.Public, Data> {
        Endpoint(
            method: .post,
            path: "idem/\(key)/\(note.id)",
            queryItems: query,
            body: DataBody(Data(note.text.utf8), contentType: "text/plain")
        )
    }

    private func applied(_ server: URL) async throws -> [String: [String]] {
        struct Logs: Decodable { var groups: [String: [String]] }
        return try await client(server).response(for: Endpoint<EndpointKinds.Public, Logs>(path: "idem-log/\(key)"))
            .groups
    }

    private static func loader() -> ModelLoader<Note> { ModelLoader<Note> { Note(id: $0, text: "loaded") } }

    private static func count(_ changes: OutboxChanges, _ wanted: Int, _ matches: (OutboxChange) -> Bool) async -> Int {
        var seen = 0
        for await change in changes where matches(change) {
            seen += 1
            if seen == wanted { break }
        }
        return seen
    }

    @Test("Offline, then back: 200 writes drain in order, each applied once though one answer in 5 is lost")
    func offlineThenDrained() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try FaultServerProcess()
        let outbox = try outbox(server.url)
        let changes = outbox.changes()
        let loader = Self.loader()
        for version in 0..<20 {
            for model in 0..<10 {
                let note = Note(id: "n\(model)", text: "v\(version)")
                try loader.update(
                    note,
                    sending: save(note, [URLQueryItem(name: "drop-one-in", value: "5")]),
                    through: outbox,
                    group: "n\(model)"
                )
            }
        }
        #expect(await Self.count(changes, 10) { if case .paused = $0 { true } else { false } } == 10)
        let pending = try #require(await loader.states(forID: "n3").first { _ in true })
        #expect(pending.value?.text == "v19" && pending.isWritePending)

        try await server.start(using: client(server.url))
        let started = ContinuousClock.now
        outbox.resume()

        #expect(await Self.count(changes, 200) { if case .sent = $0 { true } else { false } } == 200)
        print(
            "offline proof over AsyncHTTPClient: 200 writes (40 answers lost) drained in \(ContinuousClock.now - started)"
        )
        let applied = try await applied(server.url)
        for model in 0..<10 { #expect(applied["n\(model)"] == (0..<20).map { "v\($0)" }) }
        let settled = try #require(await loader.states(forID: "n3").first { !$0.isWritePending })
        #expect(settled.value?.text == "v19")
    }

    @Test("A write whose answer was lost stays pending through the server's 409s (in progress) and is applied once")
    func inProgressIsNotRefused() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try TestServers.fault()
        var defaults = RequestDefaults()
        defaults.timeout = .milliseconds(200)
        var policy = OutboxPolicy()
        (policy.initialBackoff, policy.maximumBackoff) = (.milliseconds(20), .milliseconds(100))
        let outbox = try Outbox<EndpointKinds.Public>(
            directory: directory,
            client: EndpointClient(
                environment: ServerEnvironment(baseURL: server),
                transport: transport,
                defaults: defaults
            ),
            policy: policy
        )
        let changes = outbox.changes()
        let loader = Self.loader()
        let note = Note(id: "n1", text: "held")

        // Applied, then its answer held until the test releases it, which it does after the first 409: past the
        // deadline, so the answer is lost, and every try meanwhile gets 409.
        try loader.update(note, sending: save(note, [URLQueryItem(name: "hold", value: "1")]), through: outbox)
        struct Count: Decodable { var count: Int }
        let counters = EndpointClient(environment: ServerEnvironment(baseURL: server))
        let conflicts = try await counters.response(
            for: Endpoint<EndpointKinds.Public, Count>(path: "await/idem-409/\(key)")
        )
        _ = try await counters.response(for: Endpoint<EndpointKinds.Public, Data>(path: "release/\(key)"))
        var seen: [String] = []
        for await change in changes {
            seen.append("\(change)".components(separatedBy: " ")[0])
            if case .sent = change { break }
        }

        #expect(conflicts.count >= 1, "the server answered 409 in progress before the release: \(seen)")
        #expect(!seen.contains("refused"), "\(seen)")
        #expect(try await applied(server)["n1"] == ["held"])
        let state = try #require(await loader.states(forID: "n1").first { !$0.isWritePending })
        #expect(state.value == note)
    }

    @Test("A refused write rolls back and reaches observers typed; a restart shows pending writes and sends them once")
    func refusalAndRestart() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let fault = try TestServers.fault()
        let outbox = try outbox(fault)
        let changes = outbox.changes()
        let loader = Self.loader()
        let confirmed = Note(id: "n1", text: "confirmed")
        try loader.update(confirmed, sending: save(confirmed), through: outbox)
        var reused = save(Note(id: "n1", text: "other"))
        reused.headers["Idempotency-Key"] = "\"\(key)\""
        try outbox.enqueue(reused)
        var conflicting = save(Note(id: "n1", text: "conflicting"))
        conflicting.headers["Idempotency-Key"] = "\"\(key)\""
        try loader.update(Note(id: "n1", text: "conflicting"), sending: conflicting, through: outbox)

        var refusal: EndpointError?
        for await change in changes {
            if case .refused(_, let error) = change {
                refusal = error
                break
            }
        }
        #expect(refusal?.statusCode == 422 && refusal?.kind == .unacceptableStatus)
        let state = try #require(await loader.states(forID: "n1").first { !$0.isWritePending })
        #expect(state.value == confirmed)

        // A restart: writes queued while the server is down are shown again by a new loader, then sent once.
        let down = try FaultServerProcess()
        let restartDirectory = directory.appendingPathComponent("restart")
        do {
            let first = try Outbox<EndpointKinds.Public>(directory: restartDirectory, client: client(down.url))
            try Self.loader().update(
                Note(id: "n2", text: "offline edit"),
                sending: save(Note(id: "n2", text: "offline edit")),
                through: first
            )
            await first.close()
        }
        let second = try Outbox<EndpointKinds.Public>(directory: restartDirectory, client: client(down.url))
        let secondChanges = second.changes()
        let restarted = Self.loader()
        restarted.attach(second)
        let shown = try #require(await restarted.states(forID: "n2").first { _ in true })
        #expect(shown.value?.text == "offline edit" && shown.isWritePending)
        try await down.start(using: client(down.url))
        second.resume()
        #expect(await Self.count(secondChanges, 1) { if case .sent = $0 { true } else { false } } == 1)
        #expect(try await applied(down.url)["n2"] == ["offline edit"])
    }
}

/// A fault server on a free port, started on demand: until then, connections to it are refused.
// Unchecked: its process is started once, by the one test that owns it, and only read after.
final class FaultServerProcess: @unchecked Sendable {
    let url: URL
    private let port: Int
    private let process = Process()

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound, let url = URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))") else {
            throw CocoaError(.fileWriteUnknown)
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        self.url = url
    }

    // SIGKILL, not terminate(): a child inherits the test runner's blocked signals, SIGTERM among them.
    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

    /// Starts it and returns once it answers (a GET retried on refusals every 20 ms).
    func start(using client: EndpointClient) async throws {
        let root = URL(fileURLWithPath: #filePath)
        let script = (0..<5).reduce(root) { url, _ in url.deletingLastPathComponent() }
            .appendingPathComponent("scripts/fault-server.py")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, String(port)]
        try process.run()
        let retrying = EndpointClient(
            environment: client.environment,
            transport: client.transport,
            middleware: [Retry(RetryPolicy(maxAttempts: 500, baseDelay: .milliseconds(20), multiplier: 1, jitter: 0))]
        )
        struct Tally: Decodable { var count: Int }
        _ = try await retrying.response(for: Endpoint<EndpointKinds.Public, Tally>(path: "count/start"))
    }
}
#endif
