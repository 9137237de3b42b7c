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

    /// Listens on the invalidation channel until cancelled; each time it begins, the in-memory tier is emptied, as
    /// it may hold what was invalidated while it was not listening.
    private func listen() async {
        await listenForNotifications(
            on: channel,
            postgres: postgres,
            retryInterval: configuration.listenRetryInterval,
            logger: logger,
            began: {
                self.memory.removeAll()
                self.listenerEvents.continuation.yield(.listening)
            },
            heard: { self.heard($0) }
        )
    }

    /// Forgets what memory holds of the URL named `payload`, or everything for `*`.
    func heard(_ payload: String) {
        if payload == "*" { memory.removeAll() } else { memory.removeEntries(forURL: payload) }
        listenerEvents.continuation.yield(.forgot(payload))
    }
}
#endif
