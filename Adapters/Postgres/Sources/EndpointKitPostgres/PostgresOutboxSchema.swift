#if Postgres
import EndpointKit
import Logging
import PostgresNIO

/// The tables a ``PostgresOutbox`` keeps its writes in, in a schema of the user's naming, created and migrated by
/// the library (``LibraryTables``; `outbox_version` holds the version).
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

    /// The outbox's tables.
    static let tables = LibraryTables(
        noun: "outbox",
        prefix: "outbox",
        currentVersion: currentVersion,
        failure: .outboxStorageFailed,
        migration: migration(to:schema:)
    )

    /// The statements of each migration, by the version it leads to.
    @Sendable static func migration(to version: Int, schema: String) -> [String] {
        switch version {
        case 1:
            return tables.versionTable(in: schema) + [
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
        try await tables.prepare(client, schema: schema, logger: logger)
    }
}
#endif
