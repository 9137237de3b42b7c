import Foundation

/// How the queue carries out what its state's transitions return: in memory under the lock (the stores settle,
/// the readers hear, in the order the changes happen), then the disk and the tasks once it is released, in the
/// order given: the stores' saves of what the server confirmed first, then a write's file goes.
extension OutboxQueue {
    /// What one event leaves for after the lock: the stores' saves, the effects that leave memory, the idle waiters.
    private struct AfterLock {
        var saves: [OutboxListener.Later] = []
        var effects: [OutboxState.Effect] = []
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// Applies `event` to the queue's state and carries out its effects.
    func apply(_ event: OutboxState.Event) {
        let after = shared.withLock { shared -> AfterLock in
            var after = AfterLock()
            for effect in shared.queue.apply(event, now: Date()) {
                switch effect {
                case .settle(let write, let settlement):
                    let name = write.record.store ?? ""
                    for listener in listeners.withLock({ $0[name].map { Array($0.values) } ?? [] }) {
                        if let save = listener.settle(write.record, sequence: write.sequence, settlement) {
                            after.saves.append(save)
                        }
                    }
                case .notify(let notice):
                    shared.outcomes.record(notice)
                    tellStores(notice)
                    let change = change(for: notice)
                    for subscriber in shared.subscribers.values { subscriber.yield(change) }
                case .send, .remove, .wake:
                    after.effects.append(effect)
                }
            }
            guard shared.queue.isIdle else { return after }
            after.waiters = Array(shared.idleWaiters.values)
            shared.idleWaiters = [:]
            return after
        }
        for save in after.saves { save() }
        for effect in after.effects { run(effect) }
        for waiter in after.waiters { waiter.resume() }
    }

    /// Tells the stores that show writes when a group starts or stops waiting.
    private func tellStores(_ notice: OutboxState.Notice) {
        let waits: (group: String, until: Date?)
        switch notice {
        case .paused(let group, _, _, let until): waits = (group, until)
        case .resumed(let group): waits = (group, nil)
        default: return
        }
        for listener in listeners.withLock({ $0.values.flatMap(\.values) }) {
            listener.group(waits.group, waitsUntil: waits.until)
        }
    }

    /// Carries out one effect that leaves memory: the disk, or a task.
    private func run(_ effect: OutboxState.Effect) {
        switch effect {
        case .send(let write, let attempt):
            // The task keeps the queue (and so the directory's lock) until the try has ended and been applied.
            owner.run { [self] in
                let outcome = await send(write.record)
                apply(.tryEnded(group: write.group, attempt: attempt, outcome: outcome, jitter: .random(in: 0...1)))
            }
        case .wake(let group, let number, let wait):
            let clock = clock
            owner.run { [self] in
                do { try await clock.sleep(for: wait) } catch { return }
                apply(.pauseEnded(group: group, number: number))
            }
        case .remove(let sequence):
            // A removal that fails leaves the file: the write is sent again at the next start, with its key, and
            // the server answers it from what it stored.
            try? journal.remove(sequence: sequence)
        case .settle, .notify:
            break
        }
    }

    /// What the readers of the changes see of `notice`.
    func change(for notice: OutboxState.Notice) -> OutboxChange {
        OutboxChange(notice, policy: policy) { describe($0.record, $0.sequence) }
    }
}
