import EndpointKit
import EndpointKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The outbox's own rules, through a stub server: one outbox per directory; a pause the server set (`Retry-After`)
/// is not ended by another group's success; a closed outbox sends nothing more.
@Suite(.timeLimit(.minutes(1)))
struct OutboxStateTests {
    private let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)")

    private static func write(_ group: String) -> Endpoint<EndpointKinds.Public, Data> {
        Endpoint(method: .post, path: "groups/\(group)", body: DataBody(Data(group.utf8)))
    }

    @Test("A second outbox on a directory in use is refused; once the first goes, it opens")
    func oneOutboxPerDirectory() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let client = EndpointClient(
            environment: .init(baseURL: URL(fileURLWithPath: "/")),
            transport: StubTransport(replies: [])
        )
        var first: Outbox<EndpointKinds.Public>? = try Outbox(directory: directory, client: client)

        let refused = #expect(throws: EndpointError.self) {
            try Outbox<EndpointKinds.Public>(directory: directory, client: client)
        }

        #expect(refused?.kind == .invalidRequest)
        #expect(refused?.message.contains("open in another outbox") == true)
        #expect(first != nil)
        first = nil
        #expect(throws: Never.self) { try Outbox<EndpointKinds.Public>(directory: directory, client: client) }
    }

    @Test("A success in one group ends no other group's pause (here one the server set with Retry-After)")
    func successElsewhereLeavesPauses() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let stub = StubTransport { request in
            request.url.path.hasSuffix("/limited")
                ? .response(status: 503, headers: ["Retry-After": "3600"], body: Data())
                : .response(status: 200, body: Data())
        }
        let base = try #require(URL(string: "https://api.example.com"))
        let outbox = try Outbox<EndpointKinds.Public>(
            directory: directory,
            client: EndpointClient(environment: ServerEnvironment(baseURL: base), transport: stub)
        )
        let changes = outbox.changes()

        try outbox.enqueue(Self.write("limited"), group: "limited")
        for await change in changes { if case .paused = change { break } }
        try outbox.enqueue(Self.write("fine"), group: "fine")
        for await change in changes { if case .sent = change { break } }
        await outbox.waitUntilIdle()

        let limited = await stub.requests.filter { $0.url?.path.hasSuffix("/limited") == true }
        #expect(limited.count == 1)
        #expect(outbox.pending.map(\.group) == ["limited"])
    }
}

/// Cancellation where it can land in an outbox: while a write is on its way (the outbox goes), and while a caller
/// waits for it to be idle.
@Suite(.timeLimit(.minutes(1)))
struct OutboxCancellationTests {
    private let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)")

    @Test("An outbox closed while a write is on its way cancels it; the write stays queued, and the next sends it")
    func goneMidSend() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = TestClock()
        let stub = StubTransport(replies: [.status(200).delayed(by: .seconds(90)), .status(200)], clock: clock)
        guard let base = URL(string: "https://api.example.com") else { return }
        let client = EndpointClient(environment: ServerEnvironment(baseURL: base), transport: stub, clock: clock)
        let write = Endpoint<EndpointKinds.Public, Data>(method: .post, path: "notes", body: DataBody(Data("a".utf8)))
        var first: Outbox<EndpointKinds.Public>? = try Outbox(directory: directory, client: client)
        let queued = try first?.enqueue(write)
        // The reply's 90 s wait has begun (the deadline's timer is 60 s): the write is on its way.
        try await clock.waitForSleep(atLeast: .seconds(90), atMost: .seconds(90))
        #expect(first?.pending.count == 1)

        await first?.close()
        first = nil
        let second = try Outbox<EndpointKinds.Public>(directory: directory, client: client)
        let changes = second.changes()
        #expect(second.pending.map(\.id) == [queued?.id])
        for await change in changes { if case .sent = change { break } }

        let keys = await stub.requests.map { $0.value(forHTTPHeaderField: "Idempotency-Key") }
        #expect(keys.count == 2 && keys[0] == keys[1] && keys[0] != nil)
        #expect(second.pending.isEmpty)
        // The first outbox's try was cancelled, not left waiting for its answer.
        #expect(clock.pendingSleeps.filter { $0 > .seconds(80) }.isEmpty)
    }

    @Test("A caller waiting for the outbox to be idle stops waiting when its task is cancelled")
    func idleWaitCancelled() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = TestClock()
        let stub = StubTransport(replies: [.status(200).delayed(by: .seconds(90))], clock: clock)
        guard let base = URL(string: "https://api.example.com") else { return }
        let client = EndpointClient(environment: ServerEnvironment(baseURL: base), transport: stub, clock: clock)
        let outbox = try Outbox<EndpointKinds.Public>(directory: directory, client: client)
        try outbox.enqueue(Endpoint<EndpointKinds.Public, Data>(method: .post, path: "notes"))
        try await clock.waitForSleep(atLeast: .seconds(90), atMost: .seconds(90))

        let waiter = Task { await outbox.waitUntilIdle() }
        waiter.cancel()
        await waiter.value

        #expect(outbox.pending.count == 1)
    }
}

/// What the outbox keeps off the disk that the environment adds when the write is sent.
@Suite(.timeLimit(.minutes(1)))
struct OutboxEnvironmentTests {
    private let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)")

    @Test("An environment's API key (a query item or a header) is not stored, and reaches the server at send time")
    func environmentSecretsAtSendTime() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = "key-\(UUID().uuidString)"
        guard let base = URL(string: "https://api.example.com") else { return }
        var environment = ServerEnvironment(baseURL: base)
        environment.queryItems = [URLQueryItem(name: "api_key", value: secret)]
        environment.headers["X-Api-Key"] = secret
        let stub = StubTransport(replies: [.status(503), .status(200)])
        let outbox = try Outbox<EndpointKinds.Public>(
            directory: directory,
            client: EndpointClient(environment: environment, transport: stub)
        )
        let changes = outbox.changes()

        try outbox.enqueue(Endpoint<EndpointKinds.Public, Data>(method: .post, path: "notes", body: JSONBody(["a": 1])))
        for await change in changes { if case .paused = change { break } }

        let entries = directory.appendingPathComponent("entries")
        let files = try FileManager.default.contentsOfDirectory(atPath: entries.path).map {
            try String(contentsOf: entries.appendingPathComponent($0), encoding: .utf8)
        }
        #expect(files.count == 1 && !files.contains { $0.contains(secret) })
        let sent = await stub.requests.first
        #expect(sent?.url?.query?.contains(secret) == true)
        #expect(sent?.value(forHTTPHeaderField: "X-Api-Key") == secret)
    }
}

/// An outbox opened with `startsSending: false` holds every write, old and new, until `resume()`.
@Suite(.timeLimit(.minutes(1)))
struct OutboxStartTests {
    private let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)")

    @Test("With startsSending: false nothing is sent, not even a new write, until resume()")
    func heldUntilResumed() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let stub = StubTransport(replies: [.status(200), .status(200)])
        guard let base = URL(string: "https://api.example.com") else { return }
        let client = EndpointClient(environment: ServerEnvironment(baseURL: base), transport: stub)
        let write = Endpoint<EndpointKinds.Public, Data>(method: .post, path: "notes")
        // A write left by an earlier run. That outbox holds the directory until it goes and its last task has
        // ended, so it is closed (which waits for its tasks) and let go before the directory is opened again; only
        // letting it go raced the next open under load.
        do {
            let first = try Outbox<EndpointKinds.Public>(directory: directory, client: client, startsSending: false)
            try first.enqueue(write)
            await first.close()
        }
        let outbox = try Outbox<EndpointKinds.Public>(directory: directory, client: client, startsSending: false)
        let changes = outbox.changes()
        try outbox.enqueue(write)
        await outbox.waitUntilIdle()

        #expect(await stub.requests.isEmpty)
        #expect(outbox.pending.count == 2)

        outbox.resume()
        var sent = 0
        for await change in changes {
            if case .sent = change { sent += 1 }
            if sent == 2 { break }
        }
        #expect(await stub.requests.count == 2 && outbox.pending.isEmpty)
    }
}
