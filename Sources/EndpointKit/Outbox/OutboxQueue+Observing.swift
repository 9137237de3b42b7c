/// Who hears of an outbox's writes: the stores that show them, the readers of its changes, and the callers waiting
/// for it to be idle.
extension OutboxQueue {
    // MARK: Listening

    /// Adds a store that shows writes, until the returned registration goes: it is shown every queued write of its
    /// name at once, under the lock, so that no settlement can come before it.
    func attach(_ listener: any OutboxListener, as name: String) -> OutboxRegistration {
        let id = shared.withLock { shared in
            let id = shared.makeID()
            listeners.withLock { $0[name, default: [:]][id] = listener }
            for write in shared.queue.writes where write.record.store == name {
                listener.show(write.record, sequence: write.sequence)
            }
            return id
        }
        return OutboxRegistration(queue: self, listener: listener, name: name, id: id)
    }

    /// Removes the store registered as `id` under `name`.
    func detach(_ name: String, id: UInt64) {
        listeners.withLock { listeners in
            listeners[name]?[id] = nil
            if listeners[name]?.isEmpty == true { listeners[name] = nil }
        }
    }

    /// How many stores listen: what a test of registrations reads.
    var listenerCount: Int { listeners.withLock { $0.values.reduce(0) { $0 + $1.count } } }

    /// A new sequence of changes, starting with the files set aside when the outbox opened.
    func changes() -> OutboxChanges {
        let (stream, continuation) = AsyncStream<OutboxChange>.makeStream()
        for file in damagedFiles { continuation.yield(.damaged(file: file)) }
        let id = shared.withLock { shared in
            let id = shared.makeID()
            shared.subscribers[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.shared.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return OutboxChanges(stream)
    }

    // MARK: Waiting

    /// Returns once nothing is being sent and nothing can be sent now: every group is empty, paused or stopped;
    /// at once when the caller's task is cancelled.
    func waitUntilIdle() async {
        let id = shared.withLock { $0.makeID() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let isReady = shared.withLock { shared in
                    guard !shared.queue.isIdle, !Task.isCancelled else { return true }
                    shared.idleWaiters[id] = waiter
                    return false
                }
                if isReady { waiter.resume() }
            }
        } onCancel: {
            shared.withLock { $0.idleWaiters.removeValue(forKey: id) }?.resume()
        }
    }
}

/// A store's place among an outbox's listeners, held by the store: when the store goes, so does its place, and the
/// outbox no longer tells it anything.
final class OutboxRegistration: @unchecked Sendable {
    // Unchecked because of `queue`: written once, in `init`, before the registration is shared; weak references are
    // read atomically. Weak, because a registration must not keep an outbox (and its directory's lock) alive.
    private weak var queue: OutboxQueue?
    /// The store's listener.
    let listener: any OutboxListener
    private let name: String
    private let id: UInt64

    init(queue: OutboxQueue, listener: any OutboxListener, name: String, id: UInt64) {
        self.queue = queue
        self.listener = listener
        self.name = name
        self.id = id
    }

    /// Whether it is a place in `queue`.
    func isRegistered(in queue: OutboxQueue) -> Bool { self.queue === queue }

    /// Whether its outbox is still there.
    var isOpen: Bool { queue != nil }

    deinit { queue?.detach(name, id: id) }
}
