#if Postgres
import EndpointKit
import PostgresNIO
import ServiceLifecycle

extension PostgresRateLimits: Service {
    /// Prepares the table, then listens for the pauses other instances record until a graceful shutdown or until
    /// the caller's task is cancelled; a lost connection is listened on again after
    /// ``PostgresRateLimitConfiguration/listenRetryInterval``. Each time it begins to listen it reads the pauses the
    /// table holds, so that none recorded while it was not listening is missed.
    ///
    /// - Throws: ``EndpointKit/EndpointError/Kind/storageFailed`` when the table cannot be prepared.
    public func run() async throws {
        try await prepare()
        await cancelWhenGracefulShutdown { await self.listen() }
    }

    /// Listens on the pause channel until cancelled; pauses recorded before the listening began, or while it was
    /// down, are read from the table each time it begins.
    private func listen() async {
        await listenForNotifications(
            on: channel,
            postgres: postgres,
            retryInterval: configuration.listenRetryInterval,
            logger: logger,
            began: { try await self.catchUp() },
            heard: { self.heard($0) }
        )
    }

    /// Notes every pause the table holds that has not ended.
    private func catchUp() async throws {
        let schema = configuration.schema
        let query: PostgresQuery = """
            SELECT key, paused_until - \(unescaped: schema).ratelimit_now() FROM \(unescaped: schema).ratelimit_keys
            WHERE paused_until > \(unescaped: schema).ratelimit_now()
            """
        let pauses = try await shared("the rate limits' pauses could not be read") { [postgres, logger] in
            var pauses: [(String, Int64)] = []
            for try await (key, left) in try await postgres.query(query, logger: logger).decode((String, Int64).self) {
                pauses.append((key, left))
            }
            return pauses
        }
        for (key, left) in pauses { heard(key, pausedFor: .microseconds(left)) }
    }

    /// Notes a pause announced as `<microseconds left> <key>`; anything else is ignored.
    func heard(_ payload: String) {
        guard let space = payload.firstIndex(of: " "), let left = Int64(payload[..<space]), left > 0 else { return }
        heard(String(payload[payload.index(after: space)...]), pausedFor: .microseconds(left))
    }
}
#endif
