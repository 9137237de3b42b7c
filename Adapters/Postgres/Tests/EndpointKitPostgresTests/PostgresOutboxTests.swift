#if Postgres && AsyncHTTPClient
import EndpointKit
import EndpointKitPostgres
import Foundation
import PostgresNIO
import Testing

/// What a server team relies on, over both transports against the real PostgreSQL and the fault server: a write
/// exists only if the transaction that queued it commits; instances share the groups and send each write once, in
/// order; a lost answer is sent again with its key; a graceful stop finishes the try on its way.
@Suite("PostgreSQL outbox", .timeLimit(.minutes(2)))
struct PostgresOutboxTests {
    @Test(
        "a write queued in a transaction that commits is sent once; one whose transaction rolls back never exists",
        arguments: Stack.allCases
    )
    func transactional(stack: Stack) async throws {
        let fixture = try FleetFixture(stack)
        try await TestDatabase.with { database in
            let outbox = try fixture.outbox(database, instance: "a")
            try await outbox.prepare()
            try await database.execute("CREATE TABLE \(database.schema).orders (id text PRIMARY KEY)")
            let committed = try await database.client.withTransaction(logger: database.logger) { connection in
                try await connection.query(
                    "INSERT INTO \(unescaped: database.schema).orders VALUES ('kept')",
                    logger: database.logger
                )
                return try await outbox.enqueue(fixture.save("kept", group: "orders"), on: connection)
            }
            struct RolledBack: Error {}
            let lost = Locked<OutboxWrite?>(nil)
            let rollback = await #expect(throws: PostgresTransactionError.self) {
                try await database.client.withTransaction(logger: database.logger) { connection in
                    try await connection.query(
                        "INSERT INTO \(unescaped: database.schema).orders VALUES ('gone')",
                        logger: database.logger
                    )
                    let write = try await outbox.enqueue(fixture.save("gone", group: "orders"), on: connection)
                    lost.withLock { $0 = write }
                    throw RolledBack()
                }
            }
            #expect(rollback?.closureError is RolledBack)
            let changes = outbox.changes()
            let ended = try await running([outbox]) { await collect([changes], 1) { $0.endsWrite } }
            guard case .sent(let write, 200)? = ended.first else {
                Issue.record("expected the committed write sent, got \(ended)")
                return
            }
            #expect(write.id == committed.id)
            #expect(try await fixture.applied() == ["orders": ["kept"]])
            #expect(try await outbox.status(of: committed.id) == .sent(statusCode: 200))
            let rolledBack = try #require(lost.withLock { $0 })
            #expect(try await outbox.status(of: rolledBack.id) == nil)
            #expect(try await database.texts("SELECT id FROM \(database.schema).orders") == ["kept"])
        }
    }

    @Test(
        "two instances share the groups and send every write once, in queue order within its group",
        arguments: Stack.allCases
    )
    func twoInstances(stack: Stack) async throws {
        let fixture = try FleetFixture(stack)
        try await TestDatabase.with { database in
            let first = try fixture.outbox(database, instance: "first")
            let second = try fixture.outbox(database, instance: "second")
            try await first.prepare()
            var expected: [String: [String]] = [:]
            for index in 0..<40 {
                let group = "g\(index % 5)"
                try await first.enqueue(fixture.save("w\(index)", group: group))
                expected[group, default: []].append("w\(index)")
            }
            let streams = [first.changes(), second.changes()]
            let ended = try await running([first, second]) { await collect(streams, 40) { $0.endsWrite } }
            #expect(ended.allSatisfy { if case .sent = $0 { true } else { false } })
            #expect(try await fixture.applied() == expected)
            let settlers = try await database.texts("SELECT DISTINCT settled_by FROM \(database.schema).outbox_writes")
            #expect(Set(settlers).isSubset(of: ["first", "second"]))
            // Every lease was given back at the stop.
            #expect(
                try await database.integers(
                    "SELECT count(*)::bigint FROM \(database.schema).outbox_leases WHERE owner IS NOT NULL"
                ) == [0]
            )
        }
    }

    @Test("a write whose answer was lost is sent again with its key and applied once", arguments: Stack.allCases)
    func lostAnswer(stack: Stack) async throws {
        let fixture = try FleetFixture(stack)
        try await TestDatabase.with { database in
            let outbox = try fixture.outbox(database, instance: "a")
            try await outbox.prepare()
            let write = try await outbox.enqueue(
                fixture.save("once", group: "g", query: [URLQueryItem(name: "drop", value: "1")])
            )
            let changes = outbox.changes()
            let ended = try await running([outbox]) { await collect([changes], 1) { $0.endsWrite } }
            guard case .sent(let sent, 200)? = ended.first else {
                Issue.record("expected the write sent, got \(ended)")
                return
            }
            #expect(sent.id == write.id)
            #expect(try await fixture.count("idem-dropped") == 1)
            #expect(try await fixture.count("idem-replayed") == 1)
            #expect(try await fixture.applied() == ["g": ["once"]])
        }
    }

    @Test(
        "a graceful stop lets the try on its way end and settles it, leaves the rest queued and gives the lease back",
        arguments: Stack.allCases
    )
    func gracefulStop(stack: Stack) async throws {
        let fixture = try FleetFixture(stack)
        try await TestDatabase.with { database in
            let outbox = try fixture.outbox(database, instance: "a", lease: .seconds(30))
            try await outbox.prepare()
            let held = try await outbox.enqueue(
                fixture.save("held", group: "g", query: [URLQueryItem(name: "hold", value: "1")])
            )
            let later = try await outbox.enqueue(fixture.save("later", group: "g"))
            let changes = outbox.changes()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await outbox.run() }
                // The held try has reached the server: stop, then let the server answer.
                _ = try await fixture.client().response(
                    for: Endpoint<EndpointKinds.Public, Data>(path: "await/idem-applied/\(fixture.key)")
                )
                outbox.stop()
                try await fixture.release()
                try await group.waitForAll()
            }
            let ended = await collect([changes], 1) { $0.endsWrite }
            guard case .sent(let sent, 200)? = ended.first else {
                Issue.record("expected the held write sent, got \(ended)")
                return
            }
            #expect(sent.id == held.id)
            #expect(try await outbox.status(of: held.id) == .sent(statusCode: 200))
            #expect(try await outbox.status(of: later.id) == .queued)
            #expect(try await fixture.applied() == ["g": ["held"]])
            #expect(
                try await database.integers(
                    "SELECT count(*)::bigint FROM \(database.schema).outbox_leases WHERE owner IS NOT NULL"
                ) == [0]
            )
        }
    }
}
#endif
