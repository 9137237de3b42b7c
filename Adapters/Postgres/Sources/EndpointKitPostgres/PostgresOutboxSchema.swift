#if Postgres
import EndpointKit
import Logging
import PostgresNIO

/// The tables a ``PostgresOutbox`` keeps its writes in, in a schema of the user's naming, created and migrated by
/// the library. `outbox_version` holds the version; each migration runs in one transaction under an advisory lock,
/// so that instances starting at once migrate once. A schema whose version is newer than ``currentVersion`` is
/// refused before anything is written to it.
///
/// - `outbox_writes`: one row per write, numbered by `sequence` (the queue's order); its state (`queued`, `sent`,
///   `refused`, `expired`, `unknown`, `damaged`), whether a try of it may have reached the server (`tried`), and
///   once settled its status, when, and the instance that settled it. A settled row keeps no request (`record` is
///   emptied), and is deleted once older than ``PostgresOutboxConfiguration/keepSettled`` (version 2 indexes the
///   settled rows by when).
/// - `outbox_groups`: one row per group, locked by each enqueue until its transaction ends, so that the writes of
///   one group become visible in the order of their numbers.
/// - `outbox_leases`: who may send each group, until when, under which fencing number, and whether a refusal
///   stopped it.
enum PostgresOutboxSchema {
    /// The version this EndpointKit writes and reads.
    static let currentVersion = 2

    /// The statements of each migration, by the version it leads to.
    static func migration(to version: Int, schema: String) -> [String] {
        switch version {
        case 1:
            return [
                "CREATE SCHEMA IF NOT EXISTS \(schema)",
                "CREATE TABLE \(schema).outbox_version (version integer NOT NULL)",
                "INSERT INTO \(schema).outbox_version (version) VALUES (0)",
                """
                CREATE TABLE \(schema).outbox_writes (
                    sequence bigserial PRIMARY KEY,
                    id text NOT NULL UNIQUE,
                    group_name text NOT NULL,
                    record bytea,
                    size integer NOT NULL,
                    queued_at timestamptz NOT NULL DEFAULT now(),
                    state text NOT NULL DEFAULT 'queued',
                    tried boolean NOT NULL DEFAULT false,
                    status integer,
                    settled_at timestamptz,
                    settled_by text
                )
                """,
                "CREATE INDEX ON \(schema).outbox_writes (group_name, sequence) WHERE state = 'queued'",
                "CREATE TABLE \(schema).outbox_groups (name text PRIMARY KEY, queued bigint NOT NULL DEFAULT 0)",
                """
                CREATE TABLE \(schema).outbox_leases (
                    name text PRIMARY KEY,
                    owner text,
                    expires_at timestamptz,
                    fence bigint NOT NULL DEFAULT 0,
                    stopped boolean NOT NULL DEFAULT false
                )
                """,
            ]
        case 2:
            return ["CREATE INDEX ON \(schema).outbox_writes (settled_at) WHERE state <> 'queued'"]
        default:
            return []
        }
    }

    /// Brings `schema` to ``currentVersion``, or fails without writing to it when it is newer.
    static func prepare(_ client: PostgresClient, schema: String, logger: Logger) async throws(EndpointError) {
        do {
            try await withCarefulTransaction(client, logger: logger) { connection in
                // One instance at a time migrates; the others wait here, then find the work done.
                try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(schema)))", logger: logger)
                let version = try await Self.version(on: connection, schema: schema, logger: logger)
                if version > currentVersion {
                    throw EndpointError(
                        .outboxStorageFailed,
                        "the outbox schema \(schema) is at version \(version), newer than this EndpointKit's "
                            + "\(currentVersion); nothing was changed: use an EndpointKit that knows version \(version)"
                    )
                }
                for next in stride(from: version + 1, through: currentVersion, by: 1) {
                    for statement in migration(to: next, schema: schema) {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.query(
                        PostgresQuery(unsafeSQL: "UPDATE \(schema).outbox_version SET version = \(next)"),
                        logger: logger
                    )
                }
            }
        } catch let error as EndpointError {
            throw error
        } catch {
            throw PostgresOutboxFailure.error("the outbox schema \(schema) could not be prepared", error)
        }
    }

    /// The schema's version; 0 when it has no outbox tables yet.
    private static func version(on connection: PostgresConnection, schema: String, logger: Logger) async throws -> Int {
        let exists = try await connection.query(
            "SELECT to_regclass(\(schema + ".outbox_version")) IS NOT NULL",
            logger: logger
        )
        var found = false
        for try await (flag) in exists.decode(Bool.self) { found = flag }
        guard found else { return 0 }
        let rows = try await connection.query(
            PostgresQuery(unsafeSQL: "SELECT version FROM \(schema).outbox_version"),
            logger: logger
        )
        var version = 0
        for try await (value) in rows.decode(Int.self) { version = value }
        return version
    }
}
#endif
