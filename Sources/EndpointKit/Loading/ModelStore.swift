import Foundation

/// The state behind a ``ModelLoader``: one slot per request (``LoadKey``) holding the model's ``ModelEntry`` and
/// the continuations of everyone observing it.
///
/// The store only runs effects. Every change is one event applied to one entry under the lock (the rules live in
/// ``ModelEntry/apply(_:now:)``, a pure function); the observers it wakes are resumed, and the value it confirmed
/// saved, once the lock is released, in the order the changes happened.
final class ModelStore<Model: Identifiable & Sendable>: Sendable where Model.ID: Sendable {
    typealias Key = LoadKey<Model.ID>
    typealias Entry = ModelEntry<Model>
    /// An observer waiting for the next change: resumed with the state and its change number, or `nil` once it
    /// stopped observing.
    typealias Waiter = CheckedContinuation<(state: ModelState<Model>, change: UInt64)?, Never>

    /// Observers to resume once the lock is released: a change reaches thousands of them without holding it.
    struct Wakeup {
        var waiters: [Waiter]
        var state: ModelState<Model>
        var change: UInt64

        func resume() { for waiter in waiters { waiter.resume(returning: (state, change)) } }
    }

    /// One model's entry, who observes it, and when it was last used.
    struct Slot {
        let id: Model.ID
        var entry = Entry()
        /// Who observes the entry now.
        var observers: Set<UInt64> = []
        /// Observers waiting for the next change.
        var waiters: [UInt64: Waiter] = [:]
        var lastUse: Duration
        /// The order of uses across slots, for least-recently-used eviction when times are equal.
        var useOrder: UInt64 = 0

        init(id: Model.ID, lastUse: Duration) {
            self.id = id
            self.lastUse = lastUse
        }

        /// Takes the waiters to wake with the entry's state, when the last change emits.
        mutating func wakeup(if emits: Bool) -> Wakeup? {
            guard emits, !waiters.isEmpty else { return nil }
            defer { waiters.removeAll(keepingCapacity: true) }
            return Wakeup(waiters: Array(waiters.values), state: entry.state, change: entry.changes)
        }
    }

    struct State {
        var slots: [Key: Slot] = [:]
        var nextObserver: UInt64 = 0
        var changesSinceSweep = 0
        var uses: UInt64 = 0
        /// The retention: a sweep is due at most this long after any use.
        let retention: Duration
        /// When the next sweep runs, on the loader's clock; `nil` while none is scheduled.
        var sweepDue: Duration?
        /// The task that waits for it: the store's own, cancelled when the store goes.
        var sweeper: Task<Void, Never>?
        /// Starts a sweeper that waits for the given time; set by the store once it exists.
        var startSweeper: (@Sendable (Duration) -> Task<Void, Never>)?

        /// Marks a use of `slot` now.
        mutating func use(_ slot: inout Slot, at now: Duration) {
            uses += 1
            slot.useOrder = uses
            slot.lastUse = now
            scheduleSweep(now: now)
        }

        /// Makes sure a sweep is due within the retention of `now`: whatever was used or left now is looked at
        /// then, even if nothing else happens (an idle loader still lets go of what it keeps).
        mutating func scheduleSweep(now: Duration) {
            guard sweepDue == nil else { return }
            scheduleSweep(at: now + retention, now: now)
        }

        mutating func scheduleSweep(at due: Duration, now: Duration) {
            sweepDue = due
            sweeper = startSweeper?(max(due - now, .nanoseconds(1)))
        }
    }

    let policy: ModelStorePolicy
    private let stopwatch: Stopwatch
    let state: Locked<State>
    /// Called, outside the lock, with each value the server confirmed: what a persistence saves.
    private let confirmed: (@Sendable (Key, Model) -> Void)?
    /// The store's places among the listeners of the outboxes attached to it: when the store goes, they go, and
    /// those outboxes tell it nothing more.
    let outboxRegistrations = Locked([OutboxRegistration]())

    init(policy: ModelStorePolicy, clock: any Clock<Duration>, confirmed: (@Sendable (Key, Model) -> Void)? = nil) {
        self.policy = policy
        stopwatch = Stopwatch(clock)
        self.confirmed = confirmed
        state = Locked(State(retention: policy.retention))
        // The sweeper holds the store weakly: it never keeps a store alive, and the store cancels it in deinit.
        state.withLock { state in
            state.startSweeper = { [weak self] delay in
                let sweeper = Task {
                    do { try await clock.sleep(for: delay) } catch { return }
                    self?.sweepWhenDue()
                }
                return sweeper
            }
        }
    }

    deinit {
        state.withLock { $0.sweeper?.cancel() }
    }

    var now: Duration { stopwatch.elapsed }

    /// Applies `event` to the entry of `key` (made when missing) under the lock, marking a use unless told not
    /// to; then, outside it, wakes the observers and saves what the server confirmed (unless `savesLater`: the
    /// caller then runs ``save(_:for:)`` once its own lock is released). Returns the effects.
    @discardableResult
    func apply(_ event: Entry.Event, to key: Key, id: Model.ID, isUse: Bool = true, savesLater: Bool = false)
        -> Entry.Effects
    {
        let now = self.now
        let (effects, wakeup) = state.withLock { state -> (Entry.Effects, Wakeup?) in
            // Taken out and put back, so that changing its collections copies nothing.
            var slot = state.slots.removeValue(forKey: key) ?? Slot(id: id, lastUse: now)
            let effects = slot.entry.apply(event, now: now)
            if isUse { state.use(&slot, at: now) } else { state.scheduleSweep(now: now) }
            let wakeup = slot.wakeup(if: effects.emits)
            state.slots[key] = slot
            state.changesSinceSweep += 1
            if state.changesSinceSweep >= 64 || state.slots.count > policy.maximumCount { sweep(&state, now: now) }
            return (effects, wakeup)
        }
        wakeup?.resume()
        if !savesLater, let model = effects.confirmed { confirmed?(key, model) }
        return effects
    }

    /// Saves `model`, a value the server confirmed, through the persistence (on disk for a
    /// ``DiskModelPersistence``); nothing without one.
    func save(_ model: Model, for key: Key) {
        confirmed?(key, model)
    }

    /// Puts back a value kept from an earlier run: shown at once, stale until revalidated.
    func restore(_ model: Model, for key: Key) {
        guard state.withLock({ $0.slots[key] == nil }) else { return }
        apply(.restored(model), to: key, id: model.id)
    }

    /// The entry's value when it is younger than the freshness; marks a use. An entry whose retention ended is
    /// dropped here, whether or not its sweep has run yet.
    func freshValue(for key: Key) -> Model? {
        let now = self.now
        return state.withLock { state in
            guard var slot = state.slots.removeValue(forKey: key), !isRetentionOver(slot, now: now) else { return nil }
            state.use(&slot, at: now)
            defer { state.slots[key] = slot }
            return slot.entry.isFresh(at: now, freshness: policy.freshness) ? slot.entry.value : nil
        }
    }

    /// The current value, fresh or not (none once its retention is over).
    func value(for key: Key) -> Model? {
        let now = self.now
        return state.withLock { state in
            guard let slot = state.slots[key], !isRetentionOver(slot, now: now) else { return nil }
            return slot.entry.value
        }
    }

    /// Whether nobody observes or loads `slot` and its retention ended: it is as good as swept.
    func isRetentionOver(_ slot: Slot, now: Duration) -> Bool {
        slot.observers.isEmpty && !slot.entry.isLoading && now - slot.lastUse >= policy.retention
    }

    /// The latest value the server confirmed.
    func confirmedValue(for key: Key) -> Model? { state.withLock { $0.slots[key]?.entry.confirmedValue } }

    /// Notes that a load starts; returns the counts it starts under.
    func beginLoad(_ key: Key, id: Model.ID) -> Entry.LoadStart {
        let start = apply(.loadStarted, to: key, id: id).loadStart
        return start ?? Entry.LoadStart(number: 0, writes: 0, invalidations: 0, isInvalidated: false)
    }

    /// Records how a load ended: the value callers get, `superseded` when a write or an invalidation came while
    /// it was in flight, or the failure.
    func finishLoad(
        _ key: Key,
        id: Model.ID,
        startedUnder start: Entry.LoadStart,
        isLastTry: Bool = false,
        result: Result<(model: Model, unchanged: Bool), EndpointError>
    ) -> Entry.LoadOutcome {
        let loaded = result.map { Entry.Loaded(model: $0.model, isUnchanged: $0.unchanged) }
        let event = Entry.Event.loadFinished(start: start, result: loaded, isLastTry: isLastTry)
        switch apply(event, to: key, id: id, isUse: false).loadOutcome {
        case let outcome?: return outcome
        case nil: return .failed(EndpointError(.cancelled, "the load of model \(id) ended without an outcome"))
        }
    }

    /// Stores `model` as the newest value (a put, or an optimistic write); returns the write's number.
    @discardableResult
    func write(_ model: Model?, for key: Key, id: Model.ID, confirmed: Bool) -> UInt64 {
        apply(.written(model, confirmed: confirmed), to: key, id: id).writeNumber ?? 0
    }

    /// Notes that an outbox holds the pending writes of `key` back until `until`, or (`nil`) sends them again.
    func writeWaiting(_ key: Key, until: Date?) {
        guard let id = state.withLock({ $0.slots[key]?.id }) else { return }
        apply(.writeWaiting(until: until), to: key, id: id, isUse: false)
    }

    /// Ends the optimistic write numbered `write` (see ``ModelEntry``): its outcome is shown only when no newer
    /// write came since, and a rollback shows the latest value the server confirmed, or `previous`; a confirmed
    /// value is saved. Returns whether the loader must fetch the model again now (an unknown outcome, with someone
    /// observing it).
    @discardableResult
    func settle(_ key: Key, write: UInt64, outcome: Entry.WriteOutcome, previous: Model?) -> Bool {
        let settled = settleDeferringSave(key, write: write, outcome: outcome, previous: previous)
        if let model = settled.confirmed { save(model, for: key) }
        return settled.refetches
    }

    /// ``settle(_:write:outcome:previous:)`` without the save: it returns the value the server confirmed, which the
    /// caller saves (``save(_:for:)``) once no lock is held. An outbox settles writes under its own lock, where no
    /// disk write belongs.
    func settleDeferringSave(_ key: Key, write: UInt64, outcome: Entry.WriteOutcome, previous: Model?) -> (
        refetches: Bool, confirmed: Model?
    ) {
        guard let id = state.withLock({ $0.slots[key]?.id }) else { return (false, nil) }
        let event = Entry.Event.writeSettled(write: write, outcome: outcome, previous: previous)
        let effects = apply(event, to: key, id: id, isUse: false, savesLater: true)
        return (effects.refetches, effects.confirmed)
    }
}
