/// A line per host in front of a transport: at most `limit` requests per host are handed on at once; the
/// rest wait in arrival order, and a waiter whose task is cancelled leaves without ever being sent.
final class HostQueue: Sendable {
    private let limit: Int
    private let lines = Locked([String: AsyncSemaphore]())

    init(limit: Int) { self.limit = max(1, limit) }

    /// Waits for a slot for `host`.
    func acquire(_ host: String) async throws {
        try await line(for: host).acquire()
    }

    /// Gives back a slot for `host`.
    func release(_ host: String) {
        line(for: host).release()
    }

    private func line(for host: String) -> AsyncSemaphore {
        lines.withLock { lines in
            if let line = lines[host] { return line }
            let line = AsyncSemaphore(permits: limit)
            lines[host] = line
            return line
        }
    }
}
