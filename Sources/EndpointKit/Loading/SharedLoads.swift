/// Loads in flight, keyed by ID, so that callers asking for the same ID at the same time share one load.
///
/// Each caller waits on a continuation of its own: a caller whose task is cancelled stops waiting at once,
/// and the shared load is cancelled, and forgotten, only when no caller waits for it any more. A finished
/// load is forgotten too: the next call loads afresh.
final class SharedLoads<ID: Hashable & Sendable, Value: Sendable>: Sendable {
    private typealias Waiter = CheckedContinuation<Value, any Error>

    private struct Entry {
        let generation: UInt64
        var task: Task<Void, Never>?
        var waiters: [UInt64: Waiter]
    }

    private struct State {
        var entries: [ID: Entry] = [:]
        var counter: UInt64 = 0

        mutating func next() -> UInt64 {
            counter += 1
            return counter
        }
    }

    private enum Joined {
        case cancelled
        case waiting
        case starting(generation: UInt64)
    }

    private let state = Locked(State())

    /// How many callers wait for the load of `id` now; tests use it as the signal that callers have joined.
    func waiterCount(for id: ID) -> Int {
        state.withLock { $0.entries[id]?.waiters.count ?? 0 }
    }

    /// The value for `id`, from the load already in flight for it or from a new one started with `load`.
    func value(
        for id: ID,
        load: @escaping @Sendable () async throws(EndpointError) -> Value
    ) async throws(EndpointError) -> Value {
        let token = state.withLock { $0.next() }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (waiter: Waiter) in
                    join(id: id, token: token, waiter: waiter, load: load)
                }
            } onCancel: {
                leave(id: id, token: token)
            }
        } catch let error as EndpointError {
            throw error
        } catch {
            throw EndpointError(.cancelled, "the task was cancelled while waiting for the load", underlyingError: error)
        }
    }

    private func join(
        id: ID,
        token: UInt64,
        waiter: Waiter,
        load: @escaping @Sendable () async throws(EndpointError) -> Value
    ) {
        // Decided under the lock: once stored, only `leave` or the load's completion resumes the waiter.
        let joined = state.withLock { state -> Joined in
            if Task.isCancelled { return .cancelled }
            if state.entries[id] != nil {
                state.entries[id]?.waiters[token] = waiter
                return .waiting
            }
            let generation = state.next()
            state.entries[id] = Entry(generation: generation, task: nil, waiters: [token: waiter])
            return .starting(generation: generation)
        }
        switch joined {
        case .cancelled:
            waiter.resume(throwing: CancellationError())
        case .waiting:
            break
        case .starting(let generation):
            // The load runs in a task of its own, so that one caller's cancellation does not stop it for the
            // others; `leave` cancels it when the last caller goes.
            let task = Task { await self.finish(id: id, generation: generation, with: load) }
            let orphaned = state.withLock { state -> Bool in
                guard state.entries[id]?.generation == generation else { return true }
                state.entries[id]?.task = task
                return false
            }
            if orphaned { task.cancel() }
        }
    }

    private func finish(
        id: ID,
        generation: UInt64,
        with load: @Sendable () async throws(EndpointError) -> Value
    ) async {
        let result: Result<Value, any Error>
        do throws(EndpointError) {
            result = .success(try await load())
        } catch {
            result = .failure(error)
        }
        let waiters = state.withLock { state -> [Waiter] in
            guard state.entries[id]?.generation == generation else { return [] }
            return state.entries.removeValue(forKey: id).map { Array($0.waiters.values) } ?? []
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    private func leave(id: ID, token: UInt64) {
        let (waiter, orphaned) = state.withLock { state -> (Waiter?, Task<Void, Never>?) in
            guard let waiter = state.entries[id]?.waiters.removeValue(forKey: token) else { return (nil, nil) }
            guard state.entries[id]?.waiters.isEmpty == true else { return (waiter, nil) }
            return (waiter, state.entries.removeValue(forKey: id)?.task)
        }
        waiter?.resume(throwing: CancellationError())
        orphaned?.cancel()
    }
}
