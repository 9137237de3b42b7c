#if Postgres
import EndpointKit
import PostgresNIO
import ServiceLifecycle

extension PostgresCacheStorage: Service {
    /// Listens for the invalidations other instances announce (an unsafe request's, RFC 9111 §4.4, and
    /// ``removeAll()``) and forgets what the in-memory tier holds of them, until a graceful shutdown or until the
    /// caller's task is cancelled; a lost connection is listened on again after
    /// ``PostgresCacheConfiguration/listenRetryInterval``. Each time it begins to listen it empties the in-memory
    /// tier, so that nothing invalidated while it was not listening is served from memory.
    public func run() async throws {
        await cancelWhenGracefulShutdown { await self.listen() }
    }

    /// Listens on the invalidation channel from a connection of its own until cancelled.
    private func listen() async {
        while !Task.isCancelled {
            do {
                try await postgres.withConnection { connection in
                    try await connection.listen(on: self.channel) { notifications in
                        self.memory.removeAll()
                        self.listenerEvents.continuation.yield(.listening)
                        for try await notification in notifications { self.heard(notification.payload) }
                    }
                }
            } catch {
                logger.debug("http cache: listening stopped: \(PostgresOutboxFailure.reason(error))")
            }
            try? await Task.sleep(for: configuration.listenRetryInterval)
        }
    }

    /// Forgets what memory holds of the URL named `payload`, or everything for `*`.
    func heard(_ payload: String) {
        if payload == "*" { memory.removeAll() } else { memory.removeEntries(forURL: payload) }
        listenerEvents.continuation.yield(.forgot(payload))
    }
}
#endif
