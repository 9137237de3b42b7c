/// A counting semaphore for tasks: waiters are served in arrival order, and a cancelled waiter leaves the
/// queue at once with `CancellationError`.
final class AsyncSemaphore: Sendable {
    private struct State {
        var available: Int
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextID: UInt64 = 0
        var inUse = 0
        var peakInUse = 0
    }

    private let state: Locked<State>

    init(permits: Int) { state = Locked(State(available: permits)) }

    /// The most permits ever held at once.
    var peakInUse: Int { state.withLock { $0.peakInUse } }

    /// Permits held now.
    var inUse: Int { state.withLock { $0.inUse } }

    /// Tasks waiting for a permit now.
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// Takes a permit, waiting in line for one.
    func acquire() async throws {
        // Fast path without a continuation: suspending and resuming at once still costs the task a trip
        // through the executor.
        if tryAcquire() { return }
        try await acquireWaiting()
    }

    /// Takes a permit if one is free and nobody waits, without suspending.
    func tryAcquire() -> Bool {
        state.withLock { state in
            guard state.available > 0, state.waiters.isEmpty, !Task.isCancelled else { return false }
            state.available -= 1
            state.inUse += 1
            state.peakInUse = max(state.peakInUse, state.inUse)
            return true
        }
    }

    private func acquireWaiting() async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Decided under the lock: once queued, only `onCancel` or `release` resumes the continuation.
                let granted = state.withLock { state -> Bool? in
                    if Task.isCancelled { return false }
                    if state.available > 0, state.waiters.isEmpty {
                        state.available -= 1
                        state.inUse += 1
                        state.peakInUse = max(state.peakInUse, state.inUse)
                        return true
                    }
                    state.waiters.append((id, continuation))
                    return nil
                }
                switch granted {
                case true?: continuation.resume()
                case false?: continuation.resume(throwing: CancellationError())
                case nil: break
                }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            cancelled?.resume(throwing: CancellationError())
        }
    }

    /// Returns a permit, handing it to the longest waiter if there is one.
    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            if state.waiters.isEmpty {
                state.available += 1
                state.inUse -= 1
                return nil
            }
            return state.waiters.removeFirst().continuation
        }
        next?.resume()
    }
}
