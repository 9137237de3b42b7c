#if Postgres
import EndpointKit
import Logging
import PostgresNIO

/// A set of tables the library keeps in a schema of the user's naming, with a version of its own in
/// `<prefix>_version`, created and migrated by the library: each migration runs in one transaction under an
/// advisory lock on the schema, so that instances starting at once migrate once. A schema whose version is newer
/// than ``currentVersion`` is refused before anything is written to it.
struct LibraryTables: Sendable {
    /// What the tables keep, in messages: `outbox`, `rate limit`.
    let noun: String
    /// The start of every table's name, and of the version table's: `outbox`, `ratelimit`.
    let prefix: String
    /// The version this EndpointKit writes and reads.
    let currentVersion: Int
    /// The kind of error a failure is.
    let failure: EndpointError.Kind
    /// The statements of each migration, by the version it leads to, for a schema.
    let migration: @Sendable (_ version: Int, _ schema: String) -> [String]

    /// The statements that make the version table, which every first migration begins with.
    func versionTable(in schema: String) -> [String] {
        [
            "CREATE SCHEMA IF NOT EXISTS \(schema)",
            "CREATE TABLE \(schema).\(prefix)_version (version integer NOT NULL)",
            "INSERT INTO \(schema).\(prefix)_version (version) VALUES (0)",
        ]
    }

    /// Brings `schema` to ``currentVersion``, or fails without writing to it when it is newer.
    func prepare(_ client: PostgresClient, schema: String, logger: Logger) async throws(EndpointError) {
        do {
            try await withCarefulTransaction(client, logger: logger) { connection in
                // One instance at a time migrates; the others wait here, then find the work done.
                try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(schema)))", logger: logger)
                let version = try await self.version(on: connection, schema: schema, logger: logger)
                if version > currentVersion {
                    throw EndpointError(
                        failure,
                        "the \(noun) schema \(schema) is at version \(version), newer than this EndpointKit's "
                            + "\(currentVersion); nothing was changed: use an EndpointKit that knows version \(version)"
                    )
                }
                for next in stride(from: version + 1, through: currentVersion, by: 1) {
                    for statement in migration(next, schema) {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.query(
                        PostgresQuery(unsafeSQL: "UPDATE \(schema).\(prefix)_version SET version = \(next)"),
                        logger: logger
                    )
                }
            }
        } catch let error as EndpointError {
            throw error
        } catch {
            throw PostgresOutboxFailure.error(
                "the \(noun) schema \(schema) could not be prepared",
                error,
                kind: failure
            )
        }
    }

    /// The schema's version of these tables; 0 when it has none yet.
    private func version(on connection: PostgresConnection, schema: String, logger: Logger) async throws -> Int {
        let exists = try await connection.query(
            "SELECT to_regclass(\(schema + "." + prefix + "_version")) IS NOT NULL",
            logger: logger
        )
        var found = false
        for try await (flag) in exists.decode(Bool.self) { found = flag }
        guard found else { return 0 }
        let rows = try await connection.query(
            PostgresQuery(unsafeSQL: "SELECT version FROM \(schema).\(prefix)_version"),
            logger: logger
        )
        var version = 0
        for try await (value) in rows.decode(Int.self) { version = value }
        return version
    }
}

/// Why `schema` cannot name a schema, if it cannot: it must be a lowercase SQL identifier (letters, digits and `_`,
/// starting with a letter or `_`) of at most 48 characters, as it is written into statements as it is.
func schemaNameProblem(_ schema: String, of noun: String) -> String? {
    let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789_")
    guard
        schema.count > 48 || !schema.allSatisfy(allowed.contains)
            || schema.first?.isLetter != true && schema.first != "_"
    else { return nil }
    return "the \(noun) schema name \"\(schema)\" is not a lowercase SQL identifier of at most 48 characters"
}
#endif
