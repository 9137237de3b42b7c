import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The outbox's promises that 0.8 broke, each through a stub server: a write whose try may have reached the server
/// is never refused on a 409 nor expired; its key keeps its wire form; a directory stays locked until the last try
/// of an outbox that went has ended; a foreign cancellation pauses; a stopped group stays stopped; one default
/// stream; the endpoint's settings kept or refused; pauses end on their own schedule; stores that go leave.
@Suite(.timeLimit(.minutes(1)))
struct OutboxPromisesTests {
    private let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)")

    private static var fast: OutboxPolicy {
        var policy = OutboxPolicy()
        policy.initialBackoff = .milliseconds(1)
        policy.maximumBackoff = .milliseconds(2)
        return policy
    }

    private static func changes(_ changes: OutboxChanges, until last: (OutboxChange) -> Bool) async -> [OutboxChange] {
        var seen: [OutboxChange] = []
        for await change in changes {
            seen.append(change)
            if last(change) { break }
        }
        return seen
    }

    @Test("A write whose answer was lost stays pending through 409s (in progress) until the server answers it")
    func inProgressIsNotRefused() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let conflicts = [StubResponse](repeating: .status(409), count: 5)
        let stub = StubTransport(replies: [.connectionLost()] + conflicts + [.status(201)])
        let outbox = try Outbox<EndpointKinds.Public>(
            directory: directory,
            client: OutboxTestSupport.client(stub),
            policy: Self.fast
        )
        let changes = outbox.changes()

        let write = try outbox.enqueue(OutboxTestSupport.save(OutboxNote(id: "n1", text: "a")))
        let seen = await Self.changes(changes) { if case .sent = $0 { true } else { false } }

        #expect(!seen.contains { if case .refused = $0 { true } else { false } })
        guard case .sent(let sent, 201)? = seen.last else { throw EndpointError(.cancelled, "\(seen)") }
        #expect(sent.id == write.id)
        let keys = Set(await stub.requests.map { $0.value(forHTTPHeaderField: "Idempotency-Key") })
        #expect(await stub.requests.count == 7 && keys.count == 1)
    }

    @Test("A 409 the server marks as the stored answer of an earlier try (Idempotent-Replayed) is a refusal")
    func replayedConflictIsRefused() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let replayed = StubResponse.response(status: 409, headers: ["Idempotent-Replayed": "true"], body: Data())
        let stub = StubTransport(replies: [.connectionLost(), replayed])
        let outbox = try Outbox<EndpointKinds.Public>(
            directory: directory,
            client: OutboxTestSupport.client(stub),
            policy: Self.fast
        )
        let changes = outbox.changes()

        try outbox.enqueue(OutboxTestSupport.save(OutboxNote(id: "n1", text: "a")))
        let seen = await Self.changes(changes) { if case .refused = $0 { true } else { false } }

        guard case .refused(_, let error)? = seen.last else { throw EndpointError(.cancelled, "\(seen)") }
        #expect(error.statusCode == 409)
        #expect(await stub.requests.count == 2)
    }

    @Test("Past its age, a write a last run may have sent ends as unknown; one never tried expires, with its age")
    func unknownPastAge() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let stub = StubTransport(replies: [])
        do {
            let last = try Outbox<EndpointKinds.Public>(
                directory: directory,
                client: OutboxTestSupport.client(stub),
                startsSending: false
            )
            try last.enqueue(OutboxTestSupport.save(OutboxNote(id: "n1", text: "a")))
            await last.close()
        }
        var policy = OutboxPolicy()
        policy.maximumAge = .zero
        let outbox = try Outbox<EndpointKinds.Public>(
            directory: directory,
            client: OutboxTestSupport.client(stub),
            policy: policy,
            startsSending: false
        )
        let changes = outbox.changes()
        outbox.resume()

        let first = await Self.changes(changes) { if case .unknown = $0 { true } else { false } }
        try outbox.enqueue(OutboxTestSupport.save(OutboxNote(id: "n2", text: "b")))
        let second = await Self.changes(changes) { if case .expired = $0 { true } else { false } }

        guard case .unknown(_, let unknown)? = first.last, case .expired(_, let expired)? = second.last else {
            throw EndpointError(.cancelled, "\(first) \(second)")
        }
        #expect(unknown.kind == .writeOutcomeUnknown && unknown.message.contains("may have reached the server"))
        #expect(expired.kind == .writeExpired && expired.message.contains("never reached the server"))
        #expect(!expired.message.contains("was not sent") && expired.message.contains(" ms"))
        #expect(await stub.requests.isEmpty && outbox.pending.isEmpty)
    }

    @Test("A write keeps the key's wire form it was queued with, whatever a later outbox's policy says")
    func keyWireFormKept() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let stub = StubTransport(replies: [.status(200)])
        let queued: OutboxWrite
        do {
            let last = try Outbox<EndpointKinds.Public>(
                directory: directory,
                client: OutboxTestSupport.client(stub),
                startsSending: false
            )
            queued = try last.enqueue(OutboxTestSupport.save(OutboxNote(id: "n1", text: "a")))
            await last.close()
        }
        var bare = OutboxPolicy()
        bare.keyFormat = .bare
        let outbox = try Outbox<EndpointKinds.Public>(
            directory: directory,
            client: OutboxTestSupport.client(stub),
            policy: bare
        )
        let changes = outbox.changes()

        _ = await Self.changes(changes) { if case .sent = $0 { true } else { false } }

        let sent = await stub.requests.first?.value(forHTTPHeaderField: "Idempotency-Key")
        #expect(sent == "\"\(queued.idempotencyKey)\"")
    }

    @Test("A directory stays locked until the try of an outbox that went has ended: no write is tried twice at once")
    func lockOutlivesItsTry() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let (entered, release) = (Gate(), Gate())
        let tries = Locked((running: 0, most: 0))
        let stub = StubTransport { _ in
            tries.withLock { ($0.running, $0.most) = ($0.running + 1, max($0.most, $0.running + 1)) }
            defer { tries.withLock { $0.running -= 1 } }
            entered.open()
            await release.waitIgnoringCancellation()
            return .status(200)
        }
        var first: Outbox<EndpointKinds.Public>? = try Outbox(
            directory: directory,
            client: OutboxTestSupport.client(stub)
        )
        try first?.enqueue(OutboxTestSupport.save(OutboxNote(id: "n1", text: "a")))
        await entered.wait()

        first = nil
        let refused = #expect(throws: EndpointError.self) {
            try Outbox<EndpointKinds.Public>(directory: directory, client: OutboxTestSupport.client(stub))
        }
        release.open()
        var second: Outbox<EndpointKinds.Public>?
        while second == nil {
            second = try? Outbox(directory: directory, client: OutboxTestSupport.client(stub), startsSending: false)
            await Task.yield()
        }
        let changes = second?.changes()
        second?.resume()
        if let changes { for await change in changes { if case .sent = change { break } } }

        #expect(refused?.kind == .invalidRequest && refused?.message.contains("close()") == true)
        // The cancelled try stayed queued and was sent again with its key, after the first had ended.
        let keys = await stub.requests.map { $0.value(forHTTPHeaderField: "Idempotency-Key") }
        #expect(keys.count == 2 && keys[0] == keys[1])
        #expect(tries.withLock { $0.most } == 1)
        #expect(second?.pending.isEmpty == true)
    }

    @Test("A try cancelled by something other than the outbox pauses its group, and the write is sent again")
    func foreignCancellationPauses() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let tries = Locked(0)
        let stub = StubTransport { _ in
            let count = tries.withLock { count in
                count += 1
                return count
            }
            if count == 1 { throw CancellationError() }
            return .status(200)
        }
        let outbox = try Outbox<EndpointKinds.Public>(
            directory: directory,
            client: OutboxTestSupport.client(stub),
            policy: Self.fast
        )
        let changes = outbox.changes()

        try outbox.enqueue(OutboxTestSupport.save(OutboxNote(id: "n1", text: "a")))
        let seen = await Self.changes(changes) { if case .sent = $0 { true } else { false } }
        await outbox.waitUntilIdle()

        #expect(seen.contains { if case .paused = $0 { true } else { false } })
        #expect(tries.withLock { $0 } == 2 && outbox.pending.isEmpty)
    }

    @Test("Under .stopGroup, a refused write alone in its group stops it: a later write waits for resume()")
    func stopsWhenAlone() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let stub = StubTransport(replies: [.status(412), .status(200)])
        var policy = OutboxPolicy()
        policy.onRefusal = .stopGroup
        let outbox = try Outbox<EndpointKinds.Public>(
            directory: directory,
            client: OutboxTestSupport.client(stub),
            policy: policy
        )
        let changes = outbox.changes()

        try outbox.enqueue(OutboxTestSupport.save(OutboxNote(id: "n1", text: "refused")))
        let stop = await Self.changes(changes) { if case .stopped = $0 { true } else { false } }
        try outbox.enqueue(OutboxTestSupport.save(OutboxNote(id: "n1", text: "later")))
        await outbox.waitUntilIdle()
        let whileStopped = await stub.requests.count
        outbox.resume()
        _ = await Self.changes(changes) { if case .sent = $0 { true } else { false } }

        #expect(stop.contains { if case .refused = $0 { true } else { false } })
        #expect(whileStopped == 1)
        #expect(await stub.requests.count == 2)
    }

    @Test("enqueue and update share one ordered stream unless the caller names groups")
    func oneDefaultStream() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let client = OutboxTestSupport.client(StubTransport(replies: []))
        let outbox = try Outbox<EndpointKinds.Public>(directory: directory, client: client, startsSending: false)
        let loader = ModelLoader<OutboxNote>(client: client) {
            Endpoint<EndpointKinds.Public, OutboxNote>(path: "notes/\($0)")
        }
        let note = OutboxNote(id: "n1", text: "a")

        let create = try outbox.enqueue(Endpoint<EndpointKinds.Public, OutboxNote>(method: .post, path: "notes"))
        let update = try loader.update(note, sending: OutboxTestSupport.save(note), through: outbox)
        let named = try loader.update(note, sending: OutboxTestSupport.save(note), through: outbox, group: "notes/n1")

        #expect(create.group == OutboxWrite.defaultGroup && update.group == OutboxWrite.defaultGroup)
        #expect(named.group == "notes/n1")
    }
}
