#if Postgres
import EndpointKit

/// Runs `body`, or fails with an ``EndpointError/Kind/outboxStorageFailed`` error once `limit` has passed: a pool
/// whose server is down keeps trying to connect, and a caller must hear of it rather than wait.
func withDeadline<T: Sendable>(
    _ limit: Duration,
    doing what: String,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw EndpointError(
                .outboxStorageFailed,
                "\(what): PostgreSQL did not answer within \(limit) (is the server up and reachable?)"
            )
        }
        return value
    }
}
#endif
