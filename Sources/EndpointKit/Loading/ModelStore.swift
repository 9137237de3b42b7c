import Foundation

/// The state behind a ``ModelLoader``: one entry per request (``LoadKey``) with its value, its freshness, its
/// load in progress and last error, and the continuations of everyone observing it.
///
/// Every change happens under one lock and reaches observers in the order it happened: an observer never sees
/// an older value after a newer one. A load that began before a write finishes without replacing it (the write
/// is newer than whatever the load read), and a rollback only undoes its own write.
final class ModelStore<Model: Identifiable & Sendable>: Sendable where Model.ID: Sendable {
    typealias Key = LoadKey<Model.ID>
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

    struct Entry {
        var id: Model.ID
        var value: Model?
        /// When a value was last confirmed (loaded, revalidated or written), on the loader's clock; `nil` once
        /// invalidated.
        var confirmedAt: Duration?
        var isLoading = false
        /// The last load's failure, boxed: an `EndpointError` is about 300 bytes, and entries are walked by the
        /// thousand when invalidated.
        var error: EndpointError? {
            get { failure?.error }
            set { failure = newValue.map(Failure.init) }
        }
        var failure: Failure?
        /// The latest value the server confirmed (a load, a write's answer, or a put): what a failed optimistic
        /// write falls back to, even when a load confirmed a newer one while the write was pending.
        var confirmedValue: Model?
        /// Optimistic writes whose requests have not ended: a load may confirm a value meanwhile, but the value
        /// shown stays the optimistic one until they end.
        var pending = 0
        /// Counts writes (puts, optimistic updates, rollbacks): a load that began under another count is older.
        var writes: UInt64 = 0
        /// Counts invalidations: a load that began under another count read what the invalidation declared stale.
        var invalidations: UInt64 = 0
        /// Whether the entry was invalidated since its last load: the next load goes past the HTTP cache.
        var isInvalidated = false
        /// Who observes the entry now.
        var observers: Set<UInt64> = []
        /// Observers waiting for the next change.
        var waiters: [UInt64: Waiter] = [:]
        /// Counts changes of the state (value, loading or error): what an observer compares with the last it saw.
        var changes: UInt64 = 0
        var lastUse: Duration
        /// The order of uses across entries, for least-recently-used eviction when times are equal.
        var useOrder: UInt64 = 0
        /// Counts changes of `value`.
        var revision: UInt64 = 0

        /// Marks the value stale, and any load in flight as having read a stale value; returns whether anyone
        /// observes it.
        mutating func markStale() -> Bool {
            confirmedAt = nil
            invalidations &+= 1
            isInvalidated = true
            return !observers.isEmpty
        }

        /// Shows `model` unless it equals the value on show (for an `Equatable` model): observers get no element
        /// for a value they already have.
        mutating func show(_ model: Model?) {
            guard let model, let value, ModelStore.areEqual(value, model) else {
                value = model
                revision += 1
                return
            }
        }

        var state: ModelState<Model> {
            var state = ModelState(value: value, isLoading: isLoading, error: error)
            state.isWritePending = pending > 0
            state.revision = revision
            return state
        }
    }

    final class Failure: Sendable {
        let error: EndpointError
        init(_ error: EndpointError) { self.error = error }
    }

    struct State {
        var entries: [Key: Entry] = [:]
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

        /// Marks a use of `entry` now.
        mutating func use(_ entry: inout Entry, at now: Duration) {
            uses += 1
            entry.useOrder = uses
            entry.lastUse = now
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

    /// Whether `a` equals `b`, for an `Equatable` model; `false` for any other (every value is a change).
    static func areEqual(_ a: Model, _ b: Model) -> Bool {
        guard let a = a as? any Equatable else { return false }
        return a.isEqual(to: b)
    }

    /// Puts back a value kept from an earlier run: shown at once, stale until revalidated.
    func restore(_ model: Model, for key: Key) {
        let now = self.now
        state.withLock { state in
            guard state.entries[key] == nil else { return }
            var entry = Entry(id: model.id, lastUse: now)
            entry.value = model
            entry.confirmedValue = model
            entry.revision = 1
            entry.changes = 1
            state.use(&entry, at: now)
            state.entries[key] = entry
        }
    }

    var now: Duration { stopwatch.elapsed }

    /// The entry's value when it is younger than the freshness; marks a use.
    func freshValue(for key: Key) -> Model? {
        let now = self.now
        return state.withLock { state in
            guard var entry = state.entries[key] else { return nil }
            state.use(&entry, at: now)
            state.entries[key] = entry
            guard let confirmed = entry.confirmedAt, now - confirmed < policy.freshness else { return nil }
            return entry.value
        }
    }

    /// The current value, fresh or not.
    func value(for key: Key) -> Model? { state.withLock { $0.entries[key]?.value } }

    /// The latest value the server confirmed.
    func confirmedValue(for key: Key) -> Model? { state.withLock { $0.entries[key]?.confirmedValue } }

    /// What a load started under: the entry's write and invalidation counts.
    struct LoadStart {
        var writes: UInt64
        var invalidations: UInt64
        /// Whether an invalidation came since the last load: this one must go past the HTTP cache.
        var isInvalidated: Bool
    }

    /// Notes that a load starts; returns the counts it starts under.
    func beginLoad(_ key: Key, id: Model.ID) -> LoadStart {
        let now = self.now
        let (start, wakeup) = state.withLock { state -> (LoadStart, Wakeup?) in
            var entry = state.entries.removeValue(forKey: key) ?? Entry(id: id, lastUse: now)
            entry.isLoading = true
            state.use(&entry, at: now)
            let wakeup = Self.emit(&entry)
            state.entries[key] = entry
            let start = LoadStart(
                writes: entry.writes,
                invalidations: entry.invalidations,
                isInvalidated: entry.isInvalidated
            )
            return (start, wakeup)
        }
        wakeup?.resume()
        return start
    }

    /// How a load ended, as the store took it.
    enum LoadOutcome {
        /// The value callers get.
        case value(Model)
        /// A write or an invalidation came while the load was in flight: what it read may predate the write, or
        /// be what the invalidation declared stale, so the loader sends it again (past the HTTP cache after an
        /// invalidation).
        case superseded(invalidated: Bool)
        /// The load failed.
        case failed(EndpointError)
    }

    /// Records a load's outcome: the value callers get, or `superseded` when a write came while the load was in
    /// flight (what it read may predate the write).
    ///
    /// `unchanged` (a 304) renews the time and emits no new value. A failure keeps the value and records the
    /// error, except a cancellation, which only ends the loading state.
    func finishLoad(
        _ key: Key,
        id: Model.ID,
        startedUnder start: LoadStart,
        isLastTry: Bool = false,
        result: Result<(model: Model, unchanged: Bool), EndpointError>
    ) -> LoadOutcome {
        let now = self.now
        var wakeup: Wakeup?
        var newlyConfirmed: Model?
        defer {
            wakeup?.resume()
            if let newlyConfirmed { confirmed?(key, newlyConfirmed) }
        }
        return state.withLock { state -> LoadOutcome in
            var entry = state.entries.removeValue(forKey: key) ?? Entry(id: id, lastUse: now)
            entry.isLoading = false
            defer {
                wakeup = Self.emit(&entry)
                state.entries[key] = entry
                state.scheduleSweep(now: now)
                state.changesSinceSweep += 1
                if state.changesSinceSweep >= 64 || state.entries.count > policy.maximumCount {
                    sweep(&state, now: now)
                }
            }
            switch result {
            case .success(let loaded):
                entry.error = nil
                let isInvalidated = entry.invalidations != start.invalidations
                if isInvalidated, !isLastTry {
                    // Invalidated while the load was in flight: it may have read what the invalidation declared
                    // stale, so it is neither shown nor taken as confirmed, and the caller asks the server again.
                    return .superseded(invalidated: true)
                }
                if entry.writes != start.writes, entry.value != nil {
                    // Written while the load was in flight: what the load read may predate the write, so it is
                    // neither shown nor taken as confirmed, and the caller loads again.
                    return .superseded(invalidated: false)
                }
                // Invalidations that kept coming: the newest read stands, and stays stale.
                if !isInvalidated {
                    entry.confirmedAt = now
                    entry.isInvalidated = false
                }
                if !(loaded.unchanged && entry.confirmedValue != nil) {
                    entry.confirmedValue = loaded.model
                    newlyConfirmed = loaded.model
                }
                // An optimistic write in flight stays on show; the load only renews what the server confirmed.
                if entry.pending == 0, !(loaded.unchanged && entry.value != nil) { entry.show(loaded.model) }
                return .value(entry.value ?? loaded.model)
            case .failure(let error):
                if error.kind != .cancelled { entry.error = error }
                return .failed(error)
            }
        }
    }

    /// Stores `model` as the newest value (a put, an optimistic write or a rollback); returns the write count.
    @discardableResult
    func write(_ model: Model?, for key: Key, id: Model.ID, confirmed: Bool) -> UInt64 {
        let now = self.now
        let (writes, wakeup) = state.withLock { state -> (UInt64, Wakeup?) in
            var entry = state.entries.removeValue(forKey: key) ?? Entry(id: id, lastUse: now)
            entry.show(model)
            entry.writes += 1
            state.use(&entry, at: now)
            if confirmed {
                entry.confirmedAt = now
                entry.confirmedValue = model
            } else {
                entry.pending += 1
            }
            let wakeup = Self.emit(&entry)
            state.entries[key] = entry
            state.changesSinceSweep += 1
            if state.changesSinceSweep >= 64 || state.entries.count > policy.maximumCount { sweep(&state, now: now) }
            return (entry.writes, wakeup)
        }
        wakeup?.resume()
        if confirmed, let model { self.confirmed?(key, model) }
        return writes
    }

    /// How an optimistic write's request ended.
    enum Outcome {
        /// The server answered with this model.
        case answered(Model)
        /// The server took the write and answered nothing: the optimistic value stands.
        case accepted
        /// The request failed: the value goes back to the latest the server confirmed.
        case failed
    }

    /// Ends the optimistic write numbered `write`. Its outcome is shown only when no newer write came since; a
    /// rollback shows the latest value the server confirmed (a load may have confirmed a newer one than the value
    /// before the write), or `previous` when there is none.
    func settle(_ key: Key, write: UInt64, outcome: Outcome, previous: Model?) {
        let now = self.now
        var newlyConfirmed: Model?
        let wakeup = state.withLock { state -> Wakeup? in
            // Taken out and put back, so that changing its collections copies nothing.
            guard var entry = state.entries.removeValue(forKey: key) else { return nil }
            defer {
                state.entries[key] = entry
                state.scheduleSweep(now: now)
            }
            entry.pending = max(0, entry.pending - 1)
            // A newer write stands; observers still learn that this one is no longer pending.
            guard entry.writes == write else { return Self.emit(&entry) }
            switch outcome {
            case .answered(let answer):
                entry.show(answer)
                entry.confirmedValue = answer
                entry.confirmedAt = now
                newlyConfirmed = answer
            case .accepted:
                entry.confirmedValue = entry.value
                entry.confirmedAt = now
                newlyConfirmed = entry.value
            case .failed:
                entry.show(entry.confirmedValue ?? previous)
            }
            entry.writes += 1
            return Self.emit(&entry)
        }
        wakeup?.resume()
        if let newlyConfirmed { confirmed?(key, newlyConfirmed) }
    }
}

extension Equatable {
    /// Whether `other` is a value of this type equal to this one.
    fileprivate func isEqual(to other: Any) -> Bool { (other as? Self) == self }
}
