/// Observers of the store's entries: each subscribes, waits for the next change past the last it saw, and leaves.
/// A change takes the waiters under the lock and resumes them after it.
extension ModelStore {
    /// Adds an observer of `key`; it reads changes with ``next(_:observer:after:)`` and leaves with
    /// ``unsubscribe(_:observer:)``.
    func subscribe(_ key: Key, id: Model.ID) -> UInt64 {
        let now = self.now
        return state.withLock { state -> UInt64 in
            state.nextObserver += 1
            var slot = state.slots.removeValue(forKey: key) ?? Slot(id: id, lastUse: now)
            slot.observers.insert(state.nextObserver)
            _ = slot.entry.apply(.subscribed, now: now)
            state.use(&slot, at: now)
            state.slots[key] = slot
            return state.nextObserver
        }
    }

    /// The entry's state once it has changed past `seen` (at once when it already has), with its change number;
    /// `nil` when the observer left or its task was cancelled.
    func next(_ key: Key, observer: UInt64, after seen: UInt64) async -> (state: ModelState<Model>, change: UInt64)? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: Waiter) in
                let ready = state.withLock { state -> (state: ModelState<Model>, change: UInt64)?? in
                    // Read through the dictionary, never into a copy: a copy of the slot alive while its waits
                    // change would copy every other observer's wait with it.
                    guard state.slots[key]?.observers.contains(observer) == true, !Task.isCancelled else {
                        return .some(nil)
                    }
                    if let changes = state.slots[key]?.entry.changes, changes > seen,
                        let current = state.slots[key]?.entry.state
                    {
                        return .some((current, changes))
                    }
                    state.slots[key]?.waiters[observer] = waiter
                    return .none
                }
                if let ready { waiter.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.slots[key]?.waiters.removeValue(forKey: observer) }
            waiter?.resume(returning: nil)
        }
    }

    /// Removes an observer; a wait of its in progress ends with `nil`.
    func unsubscribe(_ key: Key, observer: UInt64) {
        let now = self.now
        let waiter = state.withLock { state -> Waiter? in
            guard var slot = state.slots.removeValue(forKey: key) else { return nil }
            defer { state.slots[key] = slot }
            guard slot.observers.remove(observer) != nil else { return nil }
            _ = slot.entry.apply(.unsubscribed, now: now)
            state.use(&slot, at: now)
            return slot.waiters.removeValue(forKey: observer)
        }
        waiter?.resume(returning: nil)
    }

    /// How many observers `key` has.
    func observerCount(for key: Key) -> Int { state.withLock { $0.slots[key]?.observers.count ?? 0 } }

    /// How many observers there are in all, and how many entries.
    var counts: (observers: Int, entries: Int) {
        state.withLock { state in
            (state.slots.values.reduce(0) { $0 + $1.observers.count }, state.slots.count)
        }
    }
}
