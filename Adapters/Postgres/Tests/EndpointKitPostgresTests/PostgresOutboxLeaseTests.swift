#if Postgres && AsyncHTTPClient
import EndpointKit
import Foundation
import PostgresNIO
import Testing

@testable import EndpointKitPostgres

/// The leases, the schema and bad input, against the real PostgreSQL: an instance whose lease lapsed changes
/// nothing; a lapsed lease is taken over and its writes sent with their keys; a newer schema is refused untouched;
/// a credential is never stored; an unreachable database is a clear error. (A damaged row is the conformance
/// suite's, over both storages.)
@Suite("PostgreSQL outbox: leases, schema, bad input", .timeLimit(.minutes(2)))
struct PostgresOutboxLeaseTests {
    private func store(_ database: TestDatabase, _ instance: String) -> PostgresOutboxStore {
        PostgresOutboxStore(
            client: database.client,
            schema: database.schema,
            instance: instance,
            logger: database.logger,
            timeout: .seconds(10)
        )
    }

    @Test("an instance whose lease lapsed and was claimed again cannot settle, mark or stop anything")
    func fencing() async throws {
        let fixture = try FleetFixture(.urlSession)
        try await TestDatabase.with { database in
            let outbox = try fixture.outbox(database, instance: "writer")
            try await outbox.prepare()
            let write = try await outbox.enqueue(fixture.save("fenced", group: "g"))
            let (late, next) = (store(database, "late"), store(database, "next"))
            let old = try #require(try await late.claim(limit: 1, for: .seconds(60)).first)
            // The old lease lapses (a paused process), and another instance claims the group.
            try await database.execute(
                "UPDATE \(database.schema).outbox_leases SET expires_at = now() - interval '1 s'"
            )
            let new = try #require(try await next.claim(limit: 1, for: .seconds(60)).first)
            #expect(new.fence == old.fence + 1)
            let sequence = try #require(
                try await database.integers(
                    "SELECT sequence FROM \(database.schema).outbox_writes"
                ).first
            )
            #expect(try await late.markTried(Int64(sequence), under: old) == false)
            #expect(try await late.settle(Int64(sequence), as: "sent", status: 200, under: old) == false)
            #expect(try await late.stop(old) == false)
            #expect(try await outbox.status(of: write.id) == .queued)
            #expect(try await database.texts("SELECT owner FROM \(database.schema).outbox_leases") == ["next"])
            // The holder can.
            #expect(try await next.settle(Int64(sequence), as: "sent", status: 201, under: new))
            #expect(try await outbox.status(of: write.id) == .sent(statusCode: 201))
        }
    }

    @Test("a group whose holder died is taken over once its lease lapses, and its write sent with its key")
    func takeover() async throws {
        let fixture = try FleetFixture(.asyncHTTPClient)
        try await TestDatabase.with { database in
            let outbox = try fixture.outbox(database, instance: "survivor")
            try await outbox.prepare()
            let write = try await outbox.enqueue(fixture.save("taken over", group: "g"))
            // A holder that tried the write and died: its lease runs for one more second.
            let dead = store(database, "dead")
            let lease = try #require(try await dead.claim(limit: 1, for: .seconds(1)).first)
            let sequence = try #require(
                try await database.integers(
                    "SELECT sequence FROM \(database.schema).outbox_writes"
                ).first
            )
            #expect(try await dead.markTried(Int64(sequence), under: lease))
            let changes = outbox.changes()
            let ended = try await running([outbox]) { await collect([changes], 1) { $0.endsWrite } }
            guard case .sent(let sent, 200)? = ended.first else {
                Issue.record("expected the write sent by the survivor, got \(ended)")
                return
            }
            #expect(sent.id == write.id)
            #expect(try await database.texts("SELECT settled_by FROM \(database.schema).outbox_writes") == ["survivor"])
            #expect(try await fixture.applied() == ["g": ["taken over"]])
        }
    }

    @Test("a schema at version 1 is brought to this version: the settled rows get their index")
    func migrationFromOne() async throws {
        let fixture = try FleetFixture(.urlSession)
        try await TestDatabase.with { database in
            for statement in PostgresOutboxSchema.migration(to: 1, schema: database.schema) {
                try await database.execute(statement)
            }
            try await database.execute("UPDATE \(database.schema).outbox_version SET version = 1")
            let outbox = try fixture.outbox(database, instance: "a")
            let write = try await outbox.enqueue(fixture.save("kept across the migration", group: "g"))
            try await outbox.prepare()
            #expect(try await database.integers("SELECT version FROM \(database.schema).outbox_version") == [2])
            // pg_indexes would describe every schema's indexes, and fails on those another test is dropping.
            let index = """
                SELECT count(*)::bigint FROM pg_index
                WHERE indrelid = '\(database.schema).outbox_writes'::regclass
                    AND pg_get_indexdef(indexrelid) LIKE '%(settled_at)%'
                """
            #expect(try await database.integers(index) == [1])
            #expect(try await outbox.status(of: write.id) == .queued)
        }
    }

    @Test("the rows of writes that ended longer ago than they are kept are deleted; a queued write never is")
    func settledRowsAreDeleted() async throws {
        let fixture = try FleetFixture(.urlSession)
        try await TestDatabase.with { database in
            let outbox = try fixture.outbox(database, instance: "a")
            try await outbox.prepare()
            let old = try await outbox.enqueue(fixture.save("ended long ago", group: "g"))
            let recent = try await outbox.enqueue(fixture.save("ended now", group: "g"))
            let changes = outbox.changes()
            _ = try await running([outbox]) { await collect([changes], 2) { $0.endsWrite } }
            let waiting = try await outbox.enqueue(fixture.save("queued long ago", group: "q"))
            let table = "\(database.schema).outbox_writes"
            try await database.execute("UPDATE \(table) SET settled_at = now() - interval '2 h' WHERE id = '\(old.id)'")
            try await database.execute(
                "UPDATE \(table) SET queued_at = now() - interval '2 h' WHERE id = '\(waiting.id)'"
            )

            #expect(try await store(database, "a").prune(endedBefore: .seconds(3600), limit: 1_000) == 1)
            #expect(try await outbox.status(of: old.id) == nil)
            #expect(try await outbox.status(of: recent.id) == .sent(statusCode: 200))
            #expect(try await outbox.status(of: waiting.id) == .queued)
        }
    }

    @Test("a running sender deletes the row of a write once it ended longer ago than it is kept")
    func senderDeletesSettledRows() async throws {
        let fixture = try FleetFixture(.asyncHTTPClient)
        try await TestDatabase.with { database in
            let outbox = try fixture.outbox(database, instance: "a", keepSettled: .milliseconds(1))
            try await outbox.prepare()
            let write = try await outbox.enqueue(fixture.save("pruned", group: "g"))
            let changes = outbox.changes()
            try await running([outbox]) {
                _ = await collect([changes], 1) { $0.endsWrite }
                // Deleted at a poll (every 200 ms here): waited for as the database shows it, within the time limit.
                while try await outbox.status(of: write.id) != nil { try await Task.sleep(for: .milliseconds(50)) }
            }
            let table = "\(database.schema).outbox_writes"
            #expect(try await database.integers("SELECT count(*)::bigint FROM \(table)") == [0])
            #expect(try await fixture.applied() == ["g": ["pruned"]])
        }
    }

    @Test("a schema newer than this EndpointKit is refused, and nothing in it is changed")
    func newerSchema() async throws {
        let fixture = try FleetFixture(.urlSession)
        try await TestDatabase.with { database in
            let outbox = try fixture.outbox(database, instance: "a")
            try await outbox.prepare()
            try await database.execute("UPDATE \(database.schema).outbox_version SET version = 99")
            let tables = "SELECT count(*)::bigint FROM pg_tables WHERE schemaname = '\(database.schema)'"
            let before = try await database.integers(tables)
            let error = await #expect(throws: EndpointError.self) { try await outbox.prepare() }
            #expect(error?.kind == .outboxStorageFailed)
            #expect(
                error?.message.contains(
                    "version 99, newer than this EndpointKit's \(PostgresOutboxSchema.currentVersion)"
                ) == true
            )
            #expect(try await database.integers("SELECT version FROM \(database.schema).outbox_version") == [99])
            #expect(try await database.integers(tables) == before)
            await #expect(throws: EndpointError.self) { try await outbox.run() }
        }
    }

    @Test("a write that carries a credential is refused, and nothing is stored")
    func credentialRefused() async throws {
        let fixture = try FleetFixture(.urlSession)
        try await TestDatabase.with { database in
            let outbox = try fixture.outbox(database, instance: "a")
            try await outbox.prepare()
            var endpoint = fixture.save("secret", group: "g")
            endpoint.headers[.authorization] = "Bearer s3cr3t-token"
            let error = await #expect(throws: EndpointError.self) { try await outbox.enqueue(endpoint) }
            #expect(error?.kind == .invalidRequest)
            #expect(error.map { "\($0)" }?.contains("s3cr3t") == false)
            #expect(try await database.integers("SELECT count(*)::bigint FROM \(database.schema).outbox_writes") == [0])
        }
    }

    @Test("an unreachable database fails an enqueue with a clear error")
    func unreachable() async throws {
        let fixture = try FleetFixture(.urlSession)
        var configuration = try TestDatabase.configuration()
        // A port nothing listens on: the connection is refused.
        configuration = PostgresClient.Configuration(
            host: "127.0.0.1",
            port: 1,
            username: configuration.username,
            password: nil,
            database: configuration.database,
            tls: .disable
        )
        configuration.options.connectTimeout = .seconds(2)
        let client = PostgresClient(configuration: configuration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            let outbox = try PostgresOutbox<EndpointKinds.Public>(
                postgres: client,
                client: fixture.client(),
                configuration: PostgresOutboxConfiguration(timeout: .seconds(2))
            )
            let error = await #expect(throws: EndpointError.self) {
                try await outbox.enqueue(fixture.save("nowhere", group: "g"))
            }
            #expect(error?.kind == .outboxStorageFailed)
            #expect(error?.message.hasPrefix("the outbox could not keep the write: PostgreSQL did not answer") == true)
        }
    }

    @Test("a schema name that is not a plain identifier is refused before any statement")
    func badSchemaName() throws {
        let fixture = try FleetFixture(.urlSession)
        let client = PostgresClient(configuration: try TestDatabase.configuration())
        for schema in ["", "Public", "a-b", "x; DROP TABLE y", "1abc", String(repeating: "a", count: 49)] {
            let error = #expect(throws: EndpointError.self) {
                try PostgresOutbox<EndpointKinds.Public>(
                    postgres: client,
                    client: fixture.client(),
                    configuration: PostgresOutboxConfiguration(schema: schema)
                )
            }
            #expect(error?.kind == .invalidRequest, "\(schema)")
        }
    }
}
#endif
