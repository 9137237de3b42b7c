/// A result that several tasks wait for, each free to stop waiting when it is cancelled, while the work that
/// produces the result goes on for the others.
///
/// `Task.value` cannot do that: awaiting it ignores the waiter's cancellation until the task ends.
package final class SharedResult<Value: Sendable>: Sendable {
    private typealias Waiter = CheckedContinuation<Value, any Error>

    private struct State {
        var result: Result<Value, any Error>?
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())

    package init() {}

    /// Hands `result` to every waiter, now and later.
    package func resolve(_ result: Result<Value, any Error>) {
        let waiters = state.withLock { state -> [Waiter] in
            guard state.result == nil else { return [] }
            state.result = result
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    /// Runs `work` and hands its outcome to every waiter.
    package func resolve(catching work: @Sendable () async throws -> Value) async {
        do {
            resolve(.success(try await work()))
        } catch {
            resolve(.failure(error))
        }
    }

    /// The result once it is there; throws `CancellationError` at once when the calling task is cancelled.
    package func value() async throws -> Value {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: Waiter) in
                let ready = state.withLock { state -> Result<Value, any Error>? in
                    if let result = state.result { return result }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[id] = waiter
                    return nil
                }
                if let ready { waiter.resume(with: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(throwing: CancellationError())
        }
    }
}
