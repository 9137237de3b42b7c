import EndpointKit
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A note: the model the outbox tests write.
struct OutboxNote: Codable, Identifiable, Sendable, Equatable {
    var id: String
    var text: String
}

/// What the outbox tests share: a directory, a key on the fault server, the note endpoints, and a fault server of
/// their own that can be started late (the server "returns").
struct OutboxFixture: Sendable {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)")
    let key = "outbox-\(UUID().uuidString)"

    /// A write of `note`: its text applied in its ID's group on the fault server.
    func save(_ note: OutboxNote, query: [URLQueryItem] = []) -> Endpoint<EndpointKinds.Public, Data> {
        Endpoint(
            method: .post,
            path: "idem/\(key)/\(note.id)",
            queryItems: query,
            body: DataBody(Data(note.text.utf8), contentType: "text/plain")
        )
    }

    /// Every group's applied texts, in order, from the server at `server`.
    func applied(at server: URL) async throws -> [String: [String]] {
        struct Logs: Decodable { var groups: [String: [String]] }
        let client = EndpointClient(environment: ServerEnvironment(baseURL: server))
        return try await client.response(for: Endpoint<EndpointKinds.Public, Logs>(path: "idem-log/\(key)")).groups
    }

    /// A loader of notes that never reaches a server: a load gives the note as "loaded".
    static func loader() -> ModelLoader<OutboxNote> {
        ModelLoader<OutboxNote> { id in OutboxNote(id: id, text: "loaded") }
    }

    /// The files queued in the outbox's directory, read as text.
    func queuedFiles() -> [String] {
        let entries = directory.appendingPathComponent("entries")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: entries.path)) ?? []
        return names.compactMap { try? String(contentsOf: entries.appendingPathComponent($0), encoding: .utf8) }
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

/// A fault server on a port chosen now and started later: until ``start()`` nothing listens there, so requests
/// are refused as when a server is down.
final class LateServer: Sendable {
    let port: Int
    let url: URL
    private let process = LockedBox<Process?>(nil)

    init() throws {
        port = try Self.freePort()
        guard let url = URL(string: "http://127.0.0.1:\(port)") else { throw CocoaError(.fileWriteUnknown) }
        self.url = url
    }

    deinit { stop() }

    /// Starts the server and returns once it answers.
    func start() async throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts/fault-server.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, String(port)]
        try process.run()
        self.process.withLock { $0 = process }
        // Refused until it listens: a GET retried on refusals, every 20 ms, for up to 10 s.
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: url),
            middleware: [Retry(RetryPolicy(maxAttempts: 500, baseDelay: .milliseconds(20), multiplier: 1, jitter: 0))]
        )
        struct Tally: Decodable { var count: Int }
        _ = try await client.response(for: Endpoint<EndpointKinds.Public, Tally>(path: "count/start"))
    }

    /// Stops the server, with SIGKILL: a child inherits the test runner's blocked signals, SIGTERM among them. Does
    /// not wait for it: `waitUntilExit` spins a run loop, which on a thread of the cooperative pool never ends.
    func stop() {
        guard let process = process.withLock({ $0 }), process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
    }

    private static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0 && getsockname(descriptor, socketAddress, &length) == 0
            }
        }
        guard bound else { throw CocoaError(.fileWriteUnknown) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// A lock for the tests' own state.
final class LockedBox<Value: Sendable>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
