#if Postgres
import EndpointKit

/// Runs `body`, or fails with an error of `kind` once `limit` has passed, or with
/// `CancellationError` when the caller's task is cancelled — and returns then, whether or not `body` has ended.
///
/// A structured timeout (a task group) would wait for `body` to end, and postgres-nio 1.33.2 can leave a statement
/// waiting forever: `PostgresConnection.query` writes to a channel that has just closed (a server restarted
/// with `-m immediate`, a terminated backend) with no promise, and the statement's own promise is never completed.
/// Such a `body` is cancelled and left to itself; the caller goes on.
package func withDeadline<T: Sendable>(
    _ limit: Duration,
    doing what: String,
    kind: EndpointError.Kind = .outboxStorageFailed,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let race = DeadlineRace<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            race.start(continuation, limit: limit, body: body) {
                EndpointError(
                    kind,
                    "\(what): PostgreSQL did not answer within \(limit) (is the server up and reachable?)"
                )
            }
        }
    } onCancel: {
        race.finish(.failure(CancellationError()))
    }
}

/// The two sides of ``withDeadline(_:doing:_:)``: the work and the timer, whichever ends first resumes the caller,
/// once; the other is cancelled.
private final class DeadlineRace<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var finished: Result<T, any Error>?
        var tasks: [Task<Void, Never>] = []
    }

    private let state = Locked(State())

    func start(
        _ continuation: CheckedContinuation<T, any Error>,
        limit: Duration,
        body: @escaping @Sendable () async throws -> T,
        failure: @escaping @Sendable () -> EndpointError
    ) {
        let early = state.withLock { state -> Result<T, any Error>? in
            guard let finished = state.finished else {
                state.continuation = continuation
                return nil
            }
            return finished
        }
        if let early { return continuation.resume(with: early) }
        let work = Task {
            do { finish(.success(try await body())) } catch { finish(.failure(error)) }
        }
        let timer = Task {
            guard (try? await Task.sleep(for: limit)) != nil else { return }
            finish(.failure(failure()))
        }
        // Kept until the race ends, then cancelled: the loser stops, or is left to end on its own.
        let finished = state.withLock { state -> Bool in
            state.tasks = [work, timer]
            return state.continuation == nil
        }
        if finished { cancelTasks() }
    }

    /// Resumes the caller with `result`, if nobody has yet, and cancels both sides.
    func finish(_ result: Result<T, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<T, any Error>? in
            if state.finished == nil { state.finished = result }
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(with: result)
        cancelTasks()
    }

    private func cancelTasks() {
        for task in state.withLock({ $0.tasks }) { task.cancel() }
    }
}
#endif
