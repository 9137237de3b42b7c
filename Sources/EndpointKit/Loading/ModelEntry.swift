import Foundation

/// One model's entry in a ``ModelLoader``'s store, as a value, and every change to it as one pure transition:
/// `entry.apply(event, now:)` changes the entry and returns the effects for the store to carry out (wake the
/// observers, save a confirmed value, fetch again) and the answer the caller waits for.
///
/// Nothing here locks, waits or calls out: the store takes the entry under its lock, applies one event, and runs
/// the effects once the lock is released. The rules, each proven by `ModelEntryPropertyTests` over random runs:
/// - an observer never sees an older confirmed value after a newer one: a load that began before a write never
///   replaces it, and an optimistic value stays on show until its write settles;
/// - a rollback undoes only its own write, back to the newest value the server confirmed;
/// - no invalidation is lost: a load that began before an invalidation is not taken as fresh, and its caller
///   asks again, past the HTTP cache;
/// - with an `Equatable` model, a value equal to the one on show is no change.
struct ModelEntry<Model: Sendable>: Sendable {
    var value: Model?
    /// When a value was last confirmed (loaded, revalidated or written), on the loader's clock; `nil` once
    /// invalidated.
    var confirmedAt: Duration?
    var isLoading = false
    /// The last load's failure, boxed: an `EndpointError` is about 300 bytes, and entries are walked by the
    /// thousand when invalidated.
    var failure: Failure?
    /// The latest value the server confirmed (a load, a write's answer, or a put): what a failed optimistic write
    /// falls back to, even when a load confirmed a newer one while the write was pending.
    var confirmedValue: Model?
    /// Optimistic writes whose requests have not ended.
    var pending = 0
    /// Until when an outbox holds the pending writes back (their group is paused: no network, a server's wait);
    /// `nil` while they are on their way.
    var writeWaitsUntil: Date?
    /// Counts writes (puts, optimistic updates, rollbacks): a load that began under another count is older.
    var writes: UInt64 = 0
    /// Counts invalidations: a load that began under another count read what the invalidation declared stale.
    var invalidations: UInt64 = 0
    /// Whether the entry was invalidated since its last load: the next load goes past the HTTP cache.
    var isInvalidated = false
    /// Counts loads started, and names the newest whose read was taken: a read older than that one is never shown.
    var loads: UInt64 = 0
    var newestTakenLoad: UInt64 = 0
    /// How many observers it has.
    var observers = 0
    /// Counts changes of `value`: what tells a value publisher a new value from the same one again.
    var revision: UInt64 = 0
    /// Counts changes of the state (value, loading, error, a pending write): what an observer compares with the
    /// last it saw.
    var changes: UInt64 = 0

    /// A change to the entry.
    enum Event {
        /// A value kept from an earlier run: shown, and stale.
        case restored(Model)
        /// A load starts.
        case loadStarted
        /// A load that started under `start` ended; on its last try, a load an invalidation overtook is taken
        /// (and stays stale) rather than sent again.
        case loadFinished(start: LoadStart, result: Result<Loaded, EndpointError>, isLastTry: Bool)
        /// Someone declared the value stale.
        case invalidated
        /// A value written: a put (`confirmed`), or an optimistic write, which stays pending until it settles.
        case written(Model?, confirmed: Bool)
        /// An outbox holds the pending writes back until a time, or (`nil`) sends them again.
        case writeWaiting(until: Date?)
        /// The optimistic write numbered `write` ended.
        case writeSettled(write: UInt64, outcome: WriteOutcome, previous: Model?)
        /// An observer came or left.
        case subscribed, unsubscribed
    }

    /// What a load read: the model, and whether it is what the server or the HTTP cache had already given (a 304,
    /// a stored response).
    struct Loaded {
        var model: Model
        var isUnchanged: Bool
    }

    /// What a load started under: the entry's write and invalidation counts.
    struct LoadStart: Equatable {
        /// The load's number, in the order loads started.
        var number: UInt64
        var writes: UInt64
        var invalidations: UInt64
        /// Whether an invalidation came since the last load: this one must go past the HTTP cache.
        var isInvalidated: Bool
    }

    /// How a load ended, as the entry took it.
    enum LoadOutcome {
        /// The value callers get.
        case value(Model)
        /// A write or an invalidation came while the load was in flight, so the loader sends it again (past the
        /// HTTP cache after an invalidation).
        case superseded(invalidated: Bool)
        /// The load failed.
        case failed(EndpointError)
    }

    /// How an optimistic write's request ended.
    enum WriteOutcome {
        /// The server answered with this model.
        case answered(Model)
        /// The server took the write and answered nothing: the optimistic value stands.
        case accepted
        /// The request failed: the value goes back to the latest the server confirmed.
        case failed
        /// Nobody knows whether the server applied the write (an outbox write whose answer never came): the value
        /// on show stays, stale, and the server is asked again (past the HTTP cache) rather than the write rolled
        /// back.
        case unknown
    }

    /// What the store does after a transition, and what its caller gets back.
    struct Effects {
        /// The state changed: wake the observers.
        var emits = false
        /// A value the server confirmed: save it (a persistence).
        var confirmed: Model?
        /// Invalidated while observed: fetch it again now, past the HTTP cache.
        var refetches = false
        /// For `loadStarted`: what the load starts under.
        var loadStart: LoadStart?
        /// For `loadFinished`: how the load ended.
        var loadOutcome: LoadOutcome?
        /// For `written`: the write's number.
        var writeNumber: UInt64?
    }

    /// An error, boxed.
    final class Failure: Sendable {
        let error: EndpointError
        init(_ error: EndpointError) { self.error = error }
    }

    var error: EndpointError? { failure?.error }

    /// What observers see.
    var state: ModelState<Model> {
        var state = ModelState(value: value, isLoading: isLoading, error: error)
        state.isWritePending = pending > 0
        state.writeWaitsUntil = pending > 0 ? writeWaitsUntil : nil
        state.revision = revision
        return state
    }

    /// Whether the value is younger than `freshness` at `now`.
    func isFresh(at now: Duration, freshness: Duration) -> Bool {
        guard let confirmedAt else { return false }
        return now - confirmedAt < freshness
    }

    /// Applies `event` at `now`; returns what the store must do.
    mutating func apply(_ event: Event, now: Duration) -> Effects {
        var effects = Effects()
        let before = changes
        switch event {
        case .restored(let model):
            show(model)
            confirmedValue = model
        case .loadStarted:
            isLoading = true
            changes += 1
            loads += 1
            effects.loadStart = LoadStart(
                number: loads,
                writes: writes,
                invalidations: invalidations,
                isInvalidated: isInvalidated
            )
        case .loadFinished(let start, let result, let isLastTry):
            effects.loadOutcome = finishLoad(start: start, result: result, isLastTry: isLastTry, now: now, &effects)
        case .invalidated:
            effects.refetches = invalidate()
        case .written(let model, let confirmed):
            show(model)
            writes += 1
            if confirmed {
                confirmedAt = now
                confirmedValue = model
                effects.confirmed = model
            } else {
                pending += 1
            }
            changes += 1
            effects.writeNumber = writes
        case .writeWaiting(let until) where pending > 0 && writeWaitsUntil != until:
            writeWaitsUntil = until
            changes += 1
        case .writeWaiting:
            break
        case .writeSettled(let write, let outcome, let previous):
            effects.confirmed = settle(write: write, outcome: outcome, previous: previous, now: now)
            if case .unknown = outcome { effects.refetches = invalidate() }
        case .subscribed:
            observers += 1
        case .unsubscribed:
            observers = max(0, observers - 1)
        }
        effects.emits = changes != before
        return effects
    }

    /// The `invalidated` transition on its own, for invalidating entries by the thousand without building their
    /// effects: marks the value stale and any load in flight as having read it; returns whether to fetch again
    /// (someone observes it). Changes nothing an observer sees.
    mutating func invalidate() -> Bool {
        confirmedAt = nil
        invalidations &+= 1
        isInvalidated = true
        return observers > 0
    }

    private mutating func finishLoad(
        start: LoadStart,
        result: Result<Loaded, EndpointError>,
        isLastTry: Bool,
        now: Duration,
        _ effects: inout Effects
    ) -> LoadOutcome {
        isLoading = false
        changes += 1
        switch result {
        case .failure(let error):
            // A failure keeps the value; a cancellation only ends the loading state.
            if error.kind != .cancelled { failure = Failure(error) }
            return .failed(error)
        case .success(let loaded):
            failure = nil
            let isOvertakenByInvalidation = invalidations != start.invalidations
            if isOvertakenByInvalidation, !isLastTry { return .superseded(invalidated: true) }
            // Written while the load was in flight: what the load read may predate the write.
            if writes != start.writes, value != nil { return .superseded(invalidated: false) }
            // A load that started later was taken already: this read is older, and the newer one stands.
            if start.number < newestTakenLoad, let value { return .value(value) }
            newestTakenLoad = start.number
            // Invalidations that kept coming: the newest read stands, and stays stale.
            if !isOvertakenByInvalidation {
                confirmedAt = now
                isInvalidated = false
            }
            if !(loaded.isUnchanged && confirmedValue != nil) {
                confirmedValue = loaded.model
                effects.confirmed = loaded.model
            }
            // An optimistic write in flight stays on show; the load only renews what the server confirmed.
            if pending == 0, !(loaded.isUnchanged && value != nil) { show(loaded.model) }
            return .value(value ?? loaded.model)
        }
    }

    /// Ends the optimistic write numbered `write`; returns the value the server confirmed, if any. Its outcome is
    /// shown only when no newer write came since; observers learn either way that it no longer waits.
    private mutating func settle(write: UInt64, outcome: WriteOutcome, previous: Model?, now: Duration) -> Model? {
        pending = max(0, pending - 1)
        if pending == 0 { writeWaitsUntil = nil }
        changes += 1
        guard writes == write else { return nil }
        writes += 1
        switch outcome {
        case .answered(let answer):
            show(answer)
            confirmedValue = answer
            confirmedAt = now
            return answer
        case .accepted:
            confirmedValue = value
            confirmedAt = now
            return value
        case .failed:
            show(confirmedValue ?? previous)
            return nil
        case .unknown:
            return nil
        }
    }

    /// Shows `model` unless it equals the value on show (for an `Equatable` model): observers get no element
    /// for a value they already have.
    private mutating func show(_ model: Model?) {
        if let model, let value, Self.areEqual(value, model) { return }
        value = model
        revision += 1
        changes += 1
    }

    /// Whether `a` equals `b`, for an `Equatable` model; `false` for any other (every value is a change).
    static func areEqual(_ a: Model, _ b: Model) -> Bool {
        guard let a = a as? any Equatable else { return false }
        return a.isEqual(to: b)
    }
}

extension Equatable {
    /// Whether `other` is a value of this type equal to this one.
    fileprivate func isEqual(to other: Any) -> Bool { (other as? Self) == self }
}
