#if Postgres
import Logging
import PostgresNIO

/// Runs `body` in a transaction on a connection of `postgres`: `BEGIN`, then `COMMIT`, or `ROLLBACK` when `body`
/// throws — on an open connection only. postgres-nio 1.33.2 waits forever for a statement written to a connection
/// that has closed (its `withTransaction` sends `ROLLBACK` whatever the connection's state), so a transaction cut
/// by a restarted server would never end; here it fails with the error that cut it, and the server has rolled it
/// back already.
package func withCarefulTransaction<T: Sendable>(
    _ postgres: PostgresClient,
    logger: Logger,
    _ body: @Sendable (PostgresConnection) async throws -> T
) async throws -> T {
    try await postgres.withConnection { connection in
        try await connection.query("BEGIN", logger: logger)
        do {
            let value = try await body(connection)
            try await connection.query("COMMIT", logger: logger)
            return value
        } catch {
            if !connection.isClosed { _ = try? await connection.query("ROLLBACK", logger: logger) }
            throw error
        }
    }
}
#endif
