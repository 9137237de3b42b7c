#if Postgres
import EndpointKit
import PostgresNIO
import ServiceLifecycle

extension PostgresRateLimits: Service {
    /// Prepares the table, then listens for the pauses other instances record until a graceful shutdown or until
    /// the caller's task is cancelled; a lost connection is listened on again after
    /// ``PostgresRateLimitConfiguration/listenRetryInterval``.
    ///
    /// - Throws: ``EndpointKit/EndpointError/Kind/storageFailed`` when the table cannot be prepared.
    public func run() async throws {
        try await prepare()
        await cancelWhenGracefulShutdown { await self.listen() }
    }

    /// Listens on the pause channel from a connection of its own until cancelled.
    private func listen() async {
        while !Task.isCancelled {
            do {
                try await postgres.withConnection { connection in
                    try await connection.listen(on: self.channel) { notifications in
                        for try await notification in notifications { self.heard(notification.payload) }
                    }
                }
            } catch {
                logger.debug("rate limits: listening stopped: \(PostgresOutboxFailure.reason(error))")
            }
            try? await Task.sleep(for: configuration.listenRetryInterval)
        }
    }

    /// Notes a pause announced as `<microseconds left> <key>`; anything else is ignored.
    func heard(_ payload: String) {
        guard let space = payload.firstIndex(of: " "), let left = Int64(payload[..<space]), left > 0 else { return }
        heard(String(payload[payload.index(after: space)...]), pausedFor: .microseconds(left))
    }
}
#endif
