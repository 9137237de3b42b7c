/// Staleness and eviction: invalidation marks entries stale and names those someone observes; a sweep drops what
/// nobody observes or used lately.
extension ModelStore {
    /// Marks every entry stale, and returns those someone observes.
    func invalidateAll() -> [(key: Key, id: Model.ID)] {
        state.withLock { state in
            var observed: [(key: Key, id: Model.ID)] = []
            var index = state.entries.values.startIndex
            while index != state.entries.values.endIndex {
                if state.entries.values[index].markStale() {
                    observed.append((state.entries.keys[index], state.entries.values[index].id))
                }
                state.entries.values.formIndex(after: &index)
            }
            return observed
        }
    }

    /// Marks the entries `matches` selects as stale, and returns those someone observes, which the loader
    /// fetches again (TanStack Query's rule: what nobody watches is fetched when next asked for).
    func invalidate(where matches: (Model.ID) -> Bool) -> [(key: Key, id: Model.ID)] {
        state.withLock { state in
            var observed: [(key: Key, id: Model.ID)] = []
            // In place, by index: no hashing and no copy of an entry per entry.
            var index = state.entries.values.startIndex
            while index != state.entries.values.endIndex {
                if matches(state.entries.values[index].id), state.entries.values[index].markStale() {
                    observed.append((state.entries.keys[index], state.entries.values[index].id))
                }
                state.entries.values.formIndex(after: &index)
            }
            return observed
        }
    }

    /// Marks the entry for `key` stale; returns it when someone observes it.
    func invalidate(_ key: Key) -> [(key: Key, id: Model.ID)] {
        state.withLock { state in
            guard state.entries[key]?.markStale() == true, let id = state.entries[key]?.id else { return [] }
            return [(key, id)]
        }
    }

    /// Drops what nobody observes and nobody used within the retention, then, past the count bound, the least
    /// recently used of what nobody observes.
    func sweep(_ state: inout State, now: Duration) {
        state.changesSinceSweep = 0
        let retention = policy.retention
        state.entries = state.entries.filter { _, entry in
            !entry.observers.isEmpty || entry.isLoading || now - entry.lastUse < retention
        }
        guard state.entries.count > policy.maximumCount else { return }
        let idle = state.entries.filter { $0.value.observers.isEmpty && !$0.value.isLoading }
            .sorted { $0.value.useOrder < $1.value.useOrder }
        for (key, _) in idle.prefix(state.entries.count - policy.maximumCount) { state.entries[key] = nil }
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
            for entry in state.entries.values where entry.observers.isEmpty && !entry.isLoading {
                earliest = min(earliest ?? entry.lastUse, entry.lastUse)
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
