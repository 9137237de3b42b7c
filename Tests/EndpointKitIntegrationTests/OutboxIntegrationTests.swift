import EndpointKit
import Foundation
import Testing

/// The outbox over a real server (the fault server keeps the `Idempotency-Key` draft): writes shown at once and
/// settled by the answer; queued while the server is down and sent in order when it returns; kept across a restart
/// and shown again; refusals rolled back and reported, typed; no credential on disk; damaged files set aside.
@Suite("Outbox", .timeLimit(.minutes(3)))
struct OutboxIntegrationTests {
    static func client(_ server: URL) -> EndpointClient {
        var defaults = RequestDefaults()
        defaults.timeout = .seconds(5)
        return EndpointClient(environment: ServerEnvironment(baseURL: server), defaults: defaults)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static var fastPolicy: OutboxPolicy {
        var policy = OutboxPolicy()
        policy.initialBackoff = .milliseconds(20)
        policy.maximumBackoff = .milliseconds(100)
        return policy
    }

    @Test("A write is shown at once, sent with its key, and settled: the value stands, nothing waits on disk")
    func sentAndSettled() async throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        let server = try TestServers.fault()
        let outbox = try Outbox<EndpointKinds.Public>(directory: fixture.directory, client: Self.client(server))
        let changes = outbox.changes()
        let loader = OutboxFixture.loader()
        let note = OutboxNote(id: "n1", text: "edited")

        let write = try loader.update(note, sending: fixture.save(note), through: outbox)

        #expect(write.group == OutboxWrite.defaultGroup)
        let settled = await Changes.first(of: changes) { if case .sent = $0 { true } else { false } }
        guard case .sent(let sent, let status)? = settled else { throw Failure("no sent change") }
        #expect(sent.id == write.id && status == 200)
        #expect(try await fixture.applied(at: server)["n1"] == ["edited"])
        let state = try await #require(loader.states(forID: "n1").first { _ in true })
        #expect(state.value == note && !state.isWritePending)
        #expect(outbox.pending.isEmpty && fixture.queuedFiles().isEmpty)
    }

    @Test("Offline: 1,000 writes queue up, shown as pending; when the server returns they drain, in order, each once")
    func offlineThenDrained() async throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        let server = try LateServer()
        let outbox = try Outbox<EndpointKinds.Public>(
            directory: fixture.directory,
            client: Self.client(server.url),
            policy: Self.fastPolicy
        )
        let changes = outbox.changes()
        let loader = OutboxFixture.loader()
        let models = 20
        let queuedAt = Date()
        let queueing = ContinuousClock.now
        for version in 0..<50 {
            for model in 0..<models {
                let note = OutboxNote(id: "n\(model)", text: "v\(version)")
                // A group per model: unrelated models drain in parallel, each in its own order.
                try loader.update(note, sending: fixture.save(note), through: outbox, group: "n\(model)")
            }
        }
        print("offline proof: 1,000 writes queued on disk, each fsynced, in \(ContinuousClock.now - queueing)")
        #expect(outbox.pending.count == 1_000)
        for model in 0..<models {
            let state = try #require(await loader.states(forID: "n\(model)").first { _ in true })
            #expect(state.value?.text == "v49" && state.isWritePending)
        }
        // Every group tried once and paused: nothing was lost or sent while the server was down.
        _ = await Changes.count(of: changes, reaching: models) { if case .paused = $0 { true } else { false } }
        #expect(outbox.pending.count == 1_000 && fixture.queuedFiles().count == 1_000)
        // Each model's screen tells its writes wait for the network, and until when.
        for model in 0..<models {
            let waiting = try #require(await loader.states(forID: "n\(model)").first { $0.writeWaitsUntil != nil })
            #expect(waiting.isWritePending && (waiting.writeWaitsUntil ?? .distantPast) > queuedAt)
        }

        try await server.start()
        let started = ContinuousClock.now
        outbox.resume()
        let sent = await Changes.count(of: changes, reaching: 1_000) { if case .sent = $0 { true } else { false } }
        let elapsed = ContinuousClock.now - started
        print(
            "offline proof: 1,000 writes over \(models) groups drained in \(elapsed) (\(Int(1_000 / Self.seconds(elapsed))) writes/s)"
        )

        #expect(sent == 1_000)
        let applied = try await fixture.applied(at: server.url)
        for model in 0..<models {
            #expect(applied["n\(model)"] == (0..<50).map { "v\($0)" })
            let state = try #require(await loader.states(forID: "n\(model)").first { !$0.isWritePending })
            #expect(state.value?.text == "v49")
        }
        #expect(outbox.pending.isEmpty && fixture.queuedFiles().isEmpty)
    }

    @Test("A write whose answer was lost stays pending through the server's 409s (in progress) and is applied once")
    func inProgressIsNotRefused() async throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        let server = try TestServers.fault()
        var defaults = RequestDefaults()
        defaults.timeout = .milliseconds(200)
        let client = EndpointClient(environment: ServerEnvironment(baseURL: server), defaults: defaults)
        let outbox = try Outbox<EndpointKinds.Public>(
            directory: fixture.directory,
            client: client,
            policy: Self.fastPolicy
        )
        let changes = outbox.changes()
        let loader = OutboxFixture.loader()
        let note = OutboxNote(id: "n1", text: "held")

        // The server applies the first try and holds its answer until the test releases it: past the deadline, so
        // the answer is lost, and every try meanwhile gets 409 "in progress". The release waits for the first 409.
        try loader.update(
            note,
            sending: fixture.save(note, query: [URLQueryItem(name: "hold", value: "1")]),
            through: outbox
        )
        struct Count: Decodable { var count: Int }
        let counters = EndpointClient(environment: ServerEnvironment(baseURL: server))
        let conflicts = try await counters.response(
            for: Endpoint<EndpointKinds.Public, Count>(path: "await/idem-409/\(fixture.key)")
        )
        _ = try await counters.response(for: Endpoint<EndpointKinds.Public, Data>(path: "release/\(fixture.key)"))
        var seen: [String] = []
        for await change in changes {
            seen.append("\(change)".components(separatedBy: " ")[0])
            if case .sent = change { break }
        }

        #expect(conflicts.count >= 1, "the server answered 409 in progress before the release: \(seen)")
        #expect(!seen.contains("refused"), "\(seen)")
        #expect(try await fixture.applied(at: server)["n1"] == ["held"])
        let state = try #require(await loader.states(forID: "n1").first { !$0.isWritePending })
        #expect(state.value == note)
    }

    @Test("After a restart, pending writes are shown again and sent with their original keys, once")
    func restarted() async throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        let server = try LateServer()
        let before: [OutboxWrite]
        do {
            let outbox = try Outbox<EndpointKinds.Public>(directory: fixture.directory, client: Self.client(server.url))
            let loader = OutboxFixture.loader()
            for text in ["first", "second"] {
                let note = OutboxNote(id: "n1", text: text)
                try loader.update(note, sending: fixture.save(note), through: outbox)
            }
            before = outbox.pending
            await outbox.close()
        }
        // A new process: a new outbox on the directory, and a new loader attached to it.
        let outbox = try Outbox<EndpointKinds.Public>(
            directory: fixture.directory,
            client: Self.client(server.url),
            policy: Self.fastPolicy
        )
        let changes = outbox.changes()
        let loader = OutboxFixture.loader()
        loader.attach(outbox)

        #expect(outbox.pending.map(\.idempotencyKey) == before.map(\.idempotencyKey))
        let shown = try #require(await loader.states(forID: "n1").first { _ in true })
        #expect(shown.value?.text == "second" && shown.isWritePending)

        try await server.start()
        outbox.resume()
        _ = await Changes.count(of: changes, reaching: 2) { if case .sent = $0 { true } else { false } }
        #expect(try await fixture.applied(at: server.url)["n1"] == ["first", "second"])
        let settled = try #require(await loader.states(forID: "n1").first { !$0.isWritePending })
        #expect(settled.value?.text == "second")
    }
}

/// Reading an outbox's changes in tests.
enum Changes {
    /// The first change `matches` accepts.
    static func first(of changes: OutboxChanges, where matches: (OutboxChange) -> Bool) async -> OutboxChange? {
        for await change in changes where matches(change) { return change }
        return nil
    }

    /// Reads until `count` changes `matches` accepts came; returns how many came.
    static func count(of changes: OutboxChanges, reaching count: Int, where matches: (OutboxChange) -> Bool) async
        -> Int
    {
        var seen = 0
        for await change in changes where matches(change) {
            seen += 1
            if seen == count { break }
        }
        return seen
    }
}

struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
