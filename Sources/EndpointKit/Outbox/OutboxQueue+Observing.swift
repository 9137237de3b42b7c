/// Who hears of an outbox's writes: the stores that show them, the readers of its changes, and the callers waiting
/// for it to be idle.
extension OutboxQueue {
    // MARK: Listening

    /// Adds a store that shows writes: it is shown every queued write of its name at once, under the lock, so
    /// that no settlement can come before it.
    func attach(_ listener: any OutboxListener, as name: String, id: ObjectIdentifier) {
        state.withLock { state in
            guard state.listeners[name]?[id] == nil else { return }
            state.listeners[name, default: [:]][id] = listener
            let entries = state.groups.values.flatMap(\.queue).filter { $0.record.store == name }
            for entry in entries.sorted(by: { $0.sequence < $1.sequence }) {
                listener.show(entry.record, sequence: entry.sequence)
            }
        }
    }

    /// The store of `name` with `id`, if it listens.
    func listener(named name: String, id: ObjectIdentifier) -> (any OutboxListener)? {
        state.withLock { $0.listeners[name]?[id] }
    }

    /// Whether a store of `name` with `id` listens already.
    func isAttached(_ name: String, id: ObjectIdentifier) -> Bool {
        state.withLock { $0.listeners[name]?[id] != nil }
    }

    /// A new sequence of changes, starting with the files set aside when the outbox opened.
    func changes() -> OutboxChanges {
        let (stream, continuation) = AsyncStream<OutboxChange>.makeStream()
        for file in damagedFiles { continuation.yield(.damaged(file: file)) }
        let id = state.withLock { state in
            state.nextID += 1
            state.subscribers[state.nextID] = continuation
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return OutboxChanges(stream: stream)
    }

    /// Tells every subscriber, in the order changes happen.
    func emit(_ change: OutboxChange) {
        state.withLock { state in
            for subscriber in state.subscribers.values { subscriber.yield(change) }
        }
    }

    // MARK: Waiting

    /// Returns once nothing is being sent and nothing can be sent now: every group is empty, paused or stopped;
    /// at once when the caller's task is cancelled.
    func waitUntilIdle() async {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let isReady = state.withLock { state in
                    guard !state.isIdle, !Task.isCancelled else { return true }
                    state.idleWaiters[id] = waiter
                    return false
                }
                if isReady { waiter.resume() }
            }
        } onCancel: {
            state.withLock { $0.idleWaiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// Wakes the idle waiters if the queue is idle; call after a group stops sending.
    func wakeIdleWaiters() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard state.isIdle else { return [] }
            defer { state.idleWaiters = [:] }
            return Array(state.idleWaiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }
}
