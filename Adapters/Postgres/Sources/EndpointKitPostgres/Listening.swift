#if Postgres
import Logging
import PostgresNIO

/// Listens on `channel` from a connection of its own until the task is cancelled, listening again `retryInterval`
/// after a lost connection: each time it begins, `began` runs (what was announced while it was not listening must
/// be caught up with there), then `heard` gets each notification's payload. What the rate limits' and the HTTP
/// cache's `run()` do.
func listenForNotifications(
    on channel: String,
    postgres: PostgresClient,
    retryInterval: Duration,
    logger: Logger,
    began: @escaping @Sendable () async throws -> Void,
    heard: @escaping @Sendable (String) -> Void
) async {
    while !Task.isCancelled {
        do {
            try await postgres.withConnection { connection in
                try await connection.listen(on: channel) { notifications in
                    try await began()
                    for try await notification in notifications { heard(notification.payload) }
                }
            }
        } catch {
            logger.debug("listening on \(channel) stopped: \(PostgresOutboxFailure.reason(error))")
        }
        try? await Task.sleep(for: retryInterval)
    }
}
#endif
