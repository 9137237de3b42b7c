/// The owner of work that outlives the call that started it (a background load, a refresh): it keeps each task's
/// handle until the task ends, and cancels every task still running when the owner goes away.
///
/// Hold it in the object whose lifetime the work belongs to, and keep that object out of the work's closure (the
/// closure would keep its own owner alive). See CONTRIBUTING.md, "Owned tasks".
package final class TaskOwner: Sendable {
    private struct State {
        var tasks: [UInt64: Task<Void, Never>] = [:]
        var next: UInt64 = 0
        /// Whether `cancelAll` was called: a task started later starts cancelled.
        var isCancelled = false
    }

    private let state = Locked(State())

    package init() {}

    deinit {
        for task in state.withLock({ $0.tasks.values }) { task.cancel() }
    }

    /// Cancels every task it keeps now, and every task it is asked to run from now on.
    package func cancelAll() {
        let tasks = state.withLock { state in
            state.isCancelled = true
            return state.tasks.values
        }
        for task in tasks { task.cancel() }
    }

    /// Cancels every task (see ``cancelAll()``), and returns once each has ended.
    func cancelAllAndWait() async {
        cancelAll()
        while let task = state.withLock({ $0.tasks.values.first }) { await task.value }
    }

    /// How many of its tasks are still running.
    var count: Int { state.withLock { $0.tasks.count } }

    /// Runs `work` in a task this owner keeps until it ends.
    package func run(_ work: @escaping @Sendable () async -> Void) {
        state.withLock { state in
            state.next += 1
            let id = state.next
            // Made under the lock, so that the task's own removal (which takes it) comes after its insertion.
            let task = Task { [weak self] in
                await work()
                self?.forget(id)
            }
            state.tasks[id] = task
            if state.isCancelled { task.cancel() }
        }
    }

    /// A reference to an owner that does not keep it alive: what work that may itself hold on to the owner's
    /// holder (a client's pipeline) uses to start more work.
    final class Reference: @unchecked Sendable {
        // Safe because `owner` is written once, in `init`, before the reference is shared; weak references are
        // read atomically.
        private(set) weak var owner: TaskOwner?

        init(_ owner: TaskOwner) { self.owner = owner }
    }

    private func forget(_ id: UInt64) {
        _ = state.withLock { $0.tasks.removeValue(forKey: id) }
    }
}
