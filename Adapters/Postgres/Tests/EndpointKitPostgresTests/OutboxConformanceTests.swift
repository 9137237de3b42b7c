#if Postgres && AsyncHTTPClient
import EndpointKit
import EndpointKitPostgres
import Foundation
import Testing

/// Where an outbox keeps its writes: the conformance suite runs each promise over both.
enum Storage: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case directory
    case postgres = "PostgreSQL"

    var testDescription: String { rawValue }
}

/// An outbox of either storage, as the suite drives it: queue, start sending, read the changes, stop.
struct OutboxUnderTest: Sendable {
    let enqueue: @Sendable (Endpoint<EndpointKinds.Public, Data>, String) async throws(EndpointError) -> OutboxWrite
    let changes: @Sendable () -> OutboxChanges
    /// Sends until `body` returns, then stops and waits for the stop.
    let sending: @Sendable (@Sendable () async throws -> Void) async throws -> Void

    static func make(_ storage: Storage, _ fixture: FleetFixture, _ database: TestDatabase, policy: OutboxPolicy)
        async throws -> OutboxUnderTest
    {
        switch storage {
        case .directory:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("conf-\(UUID().uuidString)")
            let outbox = try Outbox<EndpointKinds.Public>(
                directory: folder,
                client: fixture.client(),
                policy: policy,
                startsSending: false
            )
            return OutboxUnderTest(
                enqueue: { endpoint, group throws(EndpointError) in try outbox.enqueue(endpoint, group: group) },
                changes: { outbox.changes() },
                sending: { body in
                    outbox.resume()
                    defer { try? FileManager.default.removeItem(at: folder) }
                    try await body()
                    await outbox.close()
                }
            )
        case .postgres:
            let outbox = try fixture.outbox(database, instance: "conformance", policy: policy)
            try await outbox.prepare()
            return OutboxUnderTest(
                enqueue: { endpoint, group throws(EndpointError) in try await outbox.enqueue(endpoint, group: group) },
                changes: { outbox.changes() },
                sending: { body in try await running([outbox], body) }
            )
        }
    }
}

/// The outbox's promises, each over both storages (a directory, PostgreSQL) and both transports: order per group
/// with one key per write across tries, refusals, pause and backoff, `.unknown`, expiry, bounds, and no credential
/// kept.
@Suite("Outbox conformance over both storages", .timeLimit(.minutes(2)))
struct OutboxConformanceTests {
    static let cases = Storage.allCases.flatMap { storage in Stack.allCases.map { (storage, $0) } }

    private static func fast() -> OutboxPolicy {
        var policy = OutboxPolicy()
        policy.initialBackoff = .milliseconds(20)
        policy.maximumBackoff = .milliseconds(200)
        return policy
    }

    @Test(
        "each group's writes are applied once, in order, with one key across the tries of lost answers",
        arguments: cases
    )
    func orderAndKeys(storage: Storage, stack: Stack) async throws {
        let fixture = try FleetFixture(stack)
        try await TestDatabase.with { database in
            let outbox = try await OutboxUnderTest.make(storage, fixture, database, policy: Self.fast())
            var expected: [String: [String]] = [:]
            for index in 0..<12 {
                let group = "g\(index % 3)"
                let lossy = [URLQueryItem(name: "drop-one-in", value: "3")]
                _ = try await outbox.enqueue(fixture.save("w\(index)", group: group, query: lossy), group)
                expected[group, default: []].append("w\(index)")
            }
            let changes = outbox.changes()
            try await outbox.sending {
                let ended = await collect([changes], 12) { $0.endsWrite }
                #expect(ended.allSatisfy { if case .sent = $0 { true } else { false } })
            }
            #expect(try await fixture.applied() == expected)
            #expect(try await fixture.count("idem-dropped") == 4)
            #expect(try await fixture.count("idem-replayed") == 4)
        }
    }

    @Test("a write the server refuses ends refused, and its group goes on", arguments: cases)
    func refusal(storage: Storage, stack: Stack) async throws {
        let fixture = try FleetFixture(stack)
        try await TestDatabase.with { database in
            let outbox = try await OutboxUnderTest.make(storage, fixture, database, policy: Self.fast())
            // The same key with another body: the server answers 422.
            var first = fixture.save("first", group: "g")
            first.headers[.idempotencyKey] = "shared-key"
            var reused = fixture.save("another body", group: "g")
            reused.headers[.idempotencyKey] = "shared-key"
            _ = try await outbox.enqueue(first, "g")
            let refused = try await outbox.enqueue(reused, "g")
            _ = try await outbox.enqueue(fixture.save("after", group: "g"), "g")
            let changes = outbox.changes()
            try await outbox.sending {
                let ended = await collect([changes], 3) { $0.endsWrite }
                let refusals = ended.compactMap {
                    if case .refused(let write, let error) = $0 { (write, error) } else { nil }
                }
                #expect(refusals.map(\.0.id) == [refused.id])
                #expect(refusals.first?.1.statusCode == 422)
            }
            #expect(try await fixture.applied() == ["g": ["first", "after"]])
        }
    }

    @Test("a write past its age that never reached the server ends expired, unsent", arguments: cases)
    func expiry(storage: Storage, stack: Stack) async throws {
        let fixture = try FleetFixture(stack)
        try await TestDatabase.with { database in
            var policy = Self.fast()
            policy.maximumAge = .milliseconds(1)
            let outbox = try await OutboxUnderTest.make(storage, fixture, database, policy: policy)
            let write = try await outbox.enqueue(fixture.save("too old", group: "g"), "g")
            let changes = outbox.changes()
            try await outbox.sending {
                let ended = await collect([changes], 1) { $0.endsWrite }
                guard case .expired(let expired, let error)? = ended.first else {
                    Issue.record("expected the write expired, got \(ended)")
                    return
                }
                #expect(expired.id == write.id)
                #expect(error.kind == .writeExpired)
            }
            #expect(try await fixture.count("idem") == 0)
        }
    }

    @Test("a lost answer pauses the group with its backoff, and the write is then sent with its key", arguments: cases)
    func pause(storage: Storage, stack: Stack) async throws {
        let fixture = try FleetFixture(stack)
        try await TestDatabase.with { database in
            let outbox = try await OutboxUnderTest.make(storage, fixture, database, policy: Self.fast())
            let lossy = [URLQueryItem(name: "drop", value: "1")]
            let write = try await outbox.enqueue(fixture.save("paused once", group: "g", query: lossy), "g")
            let changes = outbox.changes()
            try await outbox.sending {
                let seen = await collect([changes], 2) { change in
                    if case .paused = change { return true }
                    return change.endsWrite
                }
                guard seen.count == 2, case .paused(let group, let error, _) = seen[0],
                    case .sent(let sent, 200) = seen[1]
                else {
                    Issue.record("expected a pause, then the write sent; got \(seen)")
                    return
                }
                #expect(group == "g")
                #expect(error.mayHaveBeenSent)
                #expect(sent.id == write.id)
            }
            #expect(try await fixture.count("idem-replayed") == 1)
            #expect(try await fixture.applied() == ["g": ["paused once"]])
        }
    }

    @Test(
        "a write that may have reached the server and then passes its age ends unknown, never expired",
        arguments: cases
    )
    func unknown(storage: Storage, stack: Stack) async throws {
        let fixture = try FleetFixture(stack)
        try await TestDatabase.with { database in
            // Its answer is lost; the pause that follows (5 s at least) outlasts its age (4 s), which leaves the first
            // try 4 s to start on a loaded machine (1 s was not always enough beside the other suites).
            var policy = OutboxPolicy()
            policy.maximumAge = .seconds(4)
            policy.initialBackoff = .seconds(10)
            policy.maximumBackoff = .seconds(10)
            let outbox = try await OutboxUnderTest.make(storage, fixture, database, policy: policy)
            let lossy = [URLQueryItem(name: "drop", value: "1")]
            let write = try await outbox.enqueue(fixture.save("maybe", group: "g", query: lossy), "g")
            let changes = outbox.changes()
            try await outbox.sending {
                let ended = await collect([changes], 1) { $0.endsWrite }
                guard case .unknown(let unknown, let error)? = ended.first else {
                    Issue.record("expected the write unknown, got \(ended)")
                    return
                }
                #expect(unknown.id == write.id)
                #expect(error.kind == .writeOutcomeUnknown)
            }
            #expect(try await fixture.count("idem-applied") == 1)
        }
    }

    @Test("past the bounds a write is refused when queued, and nothing is kept", arguments: Storage.allCases)
    func bounds(storage: Storage) async throws {
        let fixture = try FleetFixture(.urlSession)
        try await TestDatabase.with { database in
            var policy = Self.fast()
            policy.maximumCount = 2
            let outbox = try await OutboxUnderTest.make(storage, fixture, database, policy: policy)
            _ = try await outbox.enqueue(fixture.save("1", group: "g"), "g")
            _ = try await outbox.enqueue(fixture.save("2", group: "g"), "g")
            let error = await #expect(throws: EndpointError.self) {
                try await outbox.enqueue(fixture.save("3", group: "g"), "g")
            }
            #expect(error?.kind == .outboxFull)
            try await outbox.sending {}
        }
    }

    @Test("a write that carries a credential is refused when queued", arguments: Storage.allCases)
    func credential(storage: Storage) async throws {
        let fixture = try FleetFixture(.urlSession)
        try await TestDatabase.with { database in
            let outbox = try await OutboxUnderTest.make(storage, fixture, database, policy: Self.fast())
            var endpoint = fixture.save("secret", group: "g")
            endpoint.headers[.authorization] = "Bearer conformance-secret"
            let error = await #expect(throws: EndpointError.self) { try await outbox.enqueue(endpoint, "g") }
            #expect(error?.kind == .invalidRequest)
            #expect(error.map { String(describing: $0) }?.contains("conformance-secret") == false)
        }
    }
}
#endif
