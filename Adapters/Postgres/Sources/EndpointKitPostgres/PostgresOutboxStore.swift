#if Postgres
import EndpointKit
import Foundation
import Logging
import PostgresNIO

/// Every statement a ``PostgresOutbox`` runs, on the tables of `PostgresOutboxSchema`. What an instance may change
/// in a group is fenced: a statement that settles a write, marks it tried or stops its group takes effect only while
/// the instance's lease on the group is live and carries the fencing number it was claimed with, so an instance
/// whose lease lapsed (paused, cut off, killed and slow to die) changes nothing once another may have claimed it.
struct PostgresOutboxStore: Sendable {
    /// A queued write as read back.
    struct Row: Sendable {
        var sequence: Int64
        var id: String
        var group: String
        var record: Data?
        var size: Int
        var tried: Bool
    }

    /// A group this instance was given: its name and fencing number.
    struct Lease: Sendable, Hashable {
        var group: String
        var fence: Int64
    }

    let client: PostgresClient
    /// The schema, checked to be a plain lowercase identifier.
    let schema: String
    /// Who this instance is, in `outbox_leases.owner` and `outbox_writes.settled_by`.
    let instance: String
    let logger: Logger
    /// How long a statement of its own may take: see ``PostgresOutboxConfiguration/timeout``.
    let timeout: Duration

    /// Runs `query` on the pool and reads its rows, under the deadline: a statement that never ends (a connection
    /// that closed under it) fails instead of holding the sender.
    func pooled(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await withDeadline(timeout, doing: "an outbox statement failed") { [client, logger] in
            var rows: [PostgresRow] = []
            for try await row in try await client.query(query, logger: logger) { rows.append(row) }
            return rows
        }
    }

    /// Runs `query` on the caller's `connection`, failing at once when the connection has closed (postgres-nio
    /// would wait forever for a statement written to a closed connection).
    @discardableResult
    func run(_ query: PostgresQuery, on connection: PostgresConnection) async throws -> PostgresRowSequence {
        guard !connection.isClosed else {
            throw EndpointError(.outboxStorageFailed, "the connection to PostgreSQL is closed")
        }
        return try await connection.query(query, logger: logger)
    }

    /// The channel an enqueue notifies when its transaction commits.
    var channel: String { "\(schema)_outbox" }

    // MARK: Queueing

    /// Adds a write to `group` on `connection`, inside the caller's transaction when one is open: it becomes
    /// visible, and its group's senders are woken, when that transaction commits. Returns its sequence number.
    func insert(id: String, group: String, record: Data, on connection: PostgresConnection) async throws -> Int64 {
        // The group's row stays locked until the transaction ends: a second enqueue to the group waits, so that
        // the group's writes become visible in the order of their numbers.
        try await run(
            """
            INSERT INTO \(unescaped: schema).outbox_groups AS g (name, queued) VALUES (\(group), 1)
            ON CONFLICT (name) DO UPDATE SET queued = g.queued + 1
            """,
            on: connection
        )
        try await run(
            "INSERT INTO \(unescaped: schema).outbox_leases (name) VALUES (\(group)) ON CONFLICT DO NOTHING",
            on: connection
        )
        let rows = try await run(
            """
            INSERT INTO \(unescaped: schema).outbox_writes (id, group_name, record, size)
            VALUES (\(id), \(group), \(record), \(record.count)) RETURNING sequence
            """,
            on: connection
        )
        var sequence: Int64 = 0
        for try await value in rows.decode(Int64.self) { sequence = value }
        try await run("SELECT pg_notify(\(channel), \(group))", on: connection)
        return sequence
    }

    /// How many writes are queued, and their bytes, as `connection` sees them.
    func queued(on connection: PostgresConnection) async throws -> (count: Int, bytes: Int) {
        let rows = try await run(
            """
            SELECT count(*)::bigint, coalesce(sum(size), 0)::bigint
            FROM \(unescaped: schema).outbox_writes WHERE state = 'queued'
            """,
            on: connection
        )
        var result = (count: 0, bytes: 0)
        for try await (count, bytes) in rows.decode((Int64, Int64).self) { result = (Int(count), Int(bytes)) }
        return result
    }

    // MARK: Leases

    /// Claims up to `limit` groups that hold queued writes, are not stopped, and whose lease is free or lapsed,
    /// for `duration`; skips the groups another instance is claiming at this moment.
    func claim(limit: Int, for duration: Duration) async throws -> [Lease] {
        let rows = try await pooled(
            """
            UPDATE \(unescaped: schema).outbox_leases AS l
            SET owner = \(instance), expires_at = now() + \(duration.milliseconds) * interval '1 millisecond',
                fence = l.fence + 1
            WHERE l.name IN (
                SELECT c.name FROM \(unescaped: schema).outbox_leases AS c
                WHERE NOT c.stopped AND (c.owner IS NULL OR c.expires_at < now())
                AND EXISTS (
                    SELECT 1 FROM \(unescaped: schema).outbox_writes AS w
                    WHERE w.group_name = c.name AND w.state = 'queued'
                )
                ORDER BY c.expires_at NULLS FIRST LIMIT \(limit)
                FOR UPDATE SKIP LOCKED
            )
            RETURNING l.name, l.fence
            """
        )
        var leases: [Lease] = []
        for (name, fence) in try rows.map({ try $0.decode((String, Int64).self) }) {
            leases.append(Lease(group: name, fence: fence))
        }
        return leases
    }

    /// Extends `leases` by `duration` from now; returns those still held (the others lapsed and may be another's).
    func renew(_ leases: [Lease], for duration: Duration) async throws -> Set<Lease> {
        guard !leases.isEmpty else { return [] }
        let rows = try await pooled(
            """
            UPDATE \(unescaped: schema).outbox_leases AS l
            SET expires_at = now() + \(duration.milliseconds) * interval '1 millisecond'
            FROM unnest(\(leases.map(\.group))::text[], \(leases.map(\.fence))::bigint[]) AS h(name, fence)
            WHERE l.name = h.name AND l.fence = h.fence AND l.owner = \(instance) AND l.expires_at > now()
            RETURNING l.name, l.fence
            """
        )
        var held: Set<Lease> = []
        for (name, fence) in try rows.map({ try $0.decode((String, Int64).self) }) {
            held.insert(Lease(group: name, fence: fence))
        }
        return held
    }

    /// Gives `lease` back, if it is still this instance's: any instance may claim the group at once.
    func release(_ lease: Lease) async throws {
        _ = try await pooled(
            """
            UPDATE \(unescaped: schema).outbox_leases SET owner = NULL, expires_at = NULL
            WHERE name = \(lease.group) AND owner = \(instance) AND fence = \(lease.fence)
            """
        )
    }

    // MARK: Writes

    /// The queued writes of `groups` numbered after `sequence`, in order.
    func queuedWrites(of groups: [String], after sequence: Int64 = 0) async throws -> [Row] {
        guard !groups.isEmpty else { return [] }
        let rows = try await pooled(
            """
            SELECT sequence, id, group_name, record, size, tried FROM \(unescaped: schema).outbox_writes
            WHERE state = 'queued' AND group_name = ANY(\(groups)::text[]) AND sequence > \(sequence)
            ORDER BY sequence
            """
        )
        var found: [Row] = []
        for row in rows {
            let (sequence, id, group, record, size, tried) = try row.decode(
                (Int64, String, String, Data?, Int32, Bool).self
            )
            found.append(Row(sequence: sequence, id: id, group: group, record: record, size: Int(size), tried: tried))
        }
        return found
    }

    /// Records that a try of write `sequence` is about to start: from now on it may have reached the server.
    /// `false` when the lease is no longer this instance's: the try must not start.
    func markTried(_ sequence: Int64, under lease: Lease) async throws -> Bool {
        try await fenced(
            "UPDATE \(unescaped: schema).outbox_writes AS w SET tried = true",
            sequence: sequence,
            lease: lease
        )
    }

    /// Settles write `sequence` as `state` (`sent`, `refused`, `expired`, `unknown`), with the server's status, and
    /// drops its request. `false` when the lease is no longer this instance's: nothing changed.
    func settle(_ sequence: Int64, as state: String, status: Int?, under lease: Lease) async throws -> Bool {
        try await fenced(
            """
            UPDATE \(unescaped: schema).outbox_writes AS w
            SET state = \(state), status = \(status.map(Int32.init)), settled_at = now(), settled_by = \(instance),
                record = NULL
            """,
            sequence: sequence,
            lease: lease
        )
    }

    /// Runs `update` (an `UPDATE … AS w SET …`) on write `sequence` if it is queued and `lease` is live.
    private func fenced(_ update: PostgresQuery, sequence: Int64, lease: Lease) async throws -> Bool {
        var query = update
        query.sql += """
             FROM \(schema).outbox_leases AS l
            WHERE w.sequence = $\(query.binds.count + 1) AND w.state = 'queued' AND l.name = w.group_name
            AND l.name = $\(query.binds.count + 2) AND l.owner = $\(query.binds.count + 3)
            AND l.fence = $\(query.binds.count + 4) AND l.expires_at > now()
            RETURNING w.sequence
            """
        query.binds.append(sequence)
        query.binds.append(lease.group)
        query.binds.append(instance)
        query.binds.append(lease.fence)
        let rows = try await pooled(query)
        return !rows.isEmpty
    }

    /// Marks `lease`'s group stopped (a refusal under ``OutboxPolicy/RefusalAction/stopGroup``) and gives the lease
    /// back: no instance sends it until ``PostgresOutbox/resume()``. Says whether it did: not when the lease is no
    /// longer this instance's.
    @discardableResult
    func stop(_ lease: Lease) async throws -> Bool {
        try await !pooled(
            """
            UPDATE \(unescaped: schema).outbox_leases SET stopped = true, owner = NULL, expires_at = NULL
            WHERE name = \(lease.group) AND owner = \(instance) AND fence = \(lease.fence) AND expires_at > now()
            RETURNING name
            """
        ).isEmpty
    }

    /// Ends every stop, in every instance's groups.
    func resumeAll() async throws {
        _ = try await pooled(
            "UPDATE \(unescaped: schema).outbox_leases SET stopped = false WHERE stopped"
        )
    }

    /// Sets write `sequence` aside as damaged: it stays in the table, out of the queue.
    func setAside(_ sequence: Int64) async throws {
        _ = try await pooled(
            """
            UPDATE \(unescaped: schema).outbox_writes SET state = 'damaged', settled_at = now(), settled_by = \(instance)
            WHERE sequence = \(sequence) AND state = 'queued'
            """
        )
    }
}

extension PostgresOutboxStore {
    /// Deletes up to `limit` rows of writes that ended more than `age` ago; returns how many it deleted.
    func prune(endedBefore age: Duration, limit: Int) async throws -> Int {
        let rows = try await pooled(
            """
            DELETE FROM \(unescaped: schema).outbox_writes WHERE sequence IN (
                SELECT sequence FROM \(unescaped: schema).outbox_writes
                WHERE state <> 'queued' AND settled_at < now() - \(age.milliseconds) * interval '1 millisecond'
                LIMIT \(limit)
            )
            RETURNING sequence
            """
        )
        return rows.count
    }

    /// Where write `id` stands, as the database says now; `nil` for an ID it does not hold.
    func status(of id: String) async throws -> OutboxStatus? {
        let rows = try await pooled(
            """
            SELECT w.state, w.status, w.tried, coalesce(l.owner IS NOT NULL AND l.expires_at > now(), false),
                w.sequence = (
                    SELECT min(q.sequence) FROM \(unescaped: schema).outbox_writes AS q
                    WHERE q.group_name = w.group_name AND q.state = 'queued'
                )
            FROM \(unescaped: schema).outbox_writes AS w
            LEFT JOIN \(unescaped: schema).outbox_leases AS l ON l.name = w.group_name
            WHERE w.id = \(id)
            """
        )
        var found: OutboxStatus?
        for row in rows {
            let (state, status, tried, leased, first) = try row.decode((String, Int32?, Bool, Bool, Bool?).self)
            found = Self.status(state: state, status: status.map(Int.init), sending: tried && leased && first == true)
        }
        return found
    }

    private static func status(state: String, status: Int?, sending: Bool) -> OutboxStatus {
        switch state {
        case "queued": sending ? .sending : .queued
        case "sent": .sent(statusCode: status ?? 0)
        case "refused": .refused(statusCode: status)
        case "expired": .expired
        case "unknown": .unknown
        default: .damaged
        }
    }
}

extension Duration {
    /// The whole milliseconds, for an interval in SQL.
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
#endif
