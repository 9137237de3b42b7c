/// Staleness and eviction: invalidation marks entries stale and names those someone observes; a sweep drops what
/// nobody observes or used lately.
extension ModelStore {
    /// Marks every entry stale, and returns those someone observes.
    func invalidateAll() -> [(key: Key, id: Model.ID)] {
        invalidate { _ in true }
    }

    /// Marks the entries `matches` selects as stale, and returns those someone observes, which the loader
    /// fetches again (TanStack Query's rule: what nobody watches is fetched when next asked for).
    func invalidate(where matches: (Model.ID) -> Bool) -> [(key: Key, id: Model.ID)] {
        state.withLock { state in
            var observed: [(key: Key, id: Model.ID)] = []
            // In place, by index: no hashing and no copy of an entry per entry. An invalidation wakes nobody
            // (the value on show stays until the refetch).
            var index = state.slots.values.startIndex
            while index != state.slots.values.endIndex {
                if matches(state.slots.values[index].id), state.slots.values[index].entry.invalidate() {
                    observed.append((state.slots.keys[index], state.slots.values[index].id))
                }
                state.slots.values.formIndex(after: &index)
            }
            return observed
        }
    }

    /// Marks the entry for `key` stale; returns it when someone observes it.
    func invalidate(_ key: Key) -> [(key: Key, id: Model.ID)] {
        guard let id = state.withLock({ $0.slots[key]?.id }) else { return [] }
        return apply(.invalidated, to: key, id: id, isUse: false).refetches ? [(key, id)] : []
    }

    /// Drops what nobody observes and nobody used within the retention, then, past the count bound, the least
    /// recently used of what nobody observes.
    func sweep(_ state: inout State, now: Duration) {
        state.changesSinceSweep = 0
        state.slots = state.slots.filter { _, slot in !isRetentionOver(slot, now: now) }
        guard state.slots.count > policy.maximumCount else { return }
        let idle = state.slots.filter { $0.value.observers.isEmpty && !$0.value.entry.isLoading }
            .sorted { $0.value.useOrder < $1.value.useOrder }
        for (key, _) in idle.prefix(state.slots.count - policy.maximumCount) { state.slots[key] = nil }
    }

    /// The scheduled sweep: drops what is due, then schedules the next for the earliest retention still running
    /// among entries nobody observes (none when every entry is observed or loading: the next use schedules one).
    func sweepWhenDue() {
        let now = self.now
        state.withLock { state in
            sweep(&state, now: now)
            state.sweepDue = nil
            state.sweeper = nil
            var earliest: Duration?
            for slot in state.slots.values where slot.observers.isEmpty && !slot.entry.isLoading {
                earliest = min(earliest ?? slot.lastUse, slot.lastUse)
            }
            if let earliest { state.scheduleSweep(at: earliest + policy.retention, now: now) }
        }
    }

    /// Sweeps now: what a loader does before it reports its size.
    func sweepNow() {
        let now = self.now
        state.withLock { sweep(&$0, now: now) }
    }
}
