@testable import EndpointKit

/// A one-shot signal a test opens: tasks that wait on it resume when it opens, never by timing. A waiting
/// task that is cancelled resumes at once.
final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())

    /// Opens the gate for every waiter, now and later.
    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isOpen = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits until the gate is open, whether or not the task is cancelled: what a transport that is slow to
    /// honour a cancellation does.
    func waitIgnoringCancellation() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.isOpen { return true }
                state.nextID += 1
                state.waiters[state.nextID] = waiter
                return false
            }
            if ready { waiter.resume() }
        }
    }

    /// Waits until the gate is open, or the task is cancelled.
    func wait() async {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if state.isOpen || Task.isCancelled { return true }
                    state.waiters[id] = waiter
                    return false
                }
                if ready { waiter.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}
