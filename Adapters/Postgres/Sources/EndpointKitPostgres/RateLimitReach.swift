#if Postgres
import EndpointKit

/// Whether a ``PostgresRateLimits`` that keeps a local share while PostgreSQL is unreachable counts in the
/// database or on its own, and its own counts; changed only by ``apply(_:)``, which returns what to do.
///
/// - While PostgreSQL answers, calls count there (`useShared`).
/// - The first failure starts a local spell: calls count in this process, against a share of each limit. A slot
///   PostgreSQL granted before the failure (to this instance or another) may lie up to the caller's `maxWait` after
///   it, so each key's first local slot is `maxWait` and one window (period and margin) after the failure: no
///   window holds both the fleet's granted sends and this instance's own. A local slot is granted at most one window
///   ahead.
/// - Once per retry interval, one call tries PostgreSQL again; when it answers, the spell ends, its counts are
///   dropped, and each key this spell granted a slot of is to be paused in PostgreSQL until one window after the last
///   such slot (`pauseShared`), so that no window holds both this instance's own sends and the fleet's after them.
///   The call that found PostgreSQL back reserves again after those pauses.
///
/// Times are microseconds of the process's clock.
struct RateLimitReach: Sendable, Hashable {
    typealias Time = RateLimitState.Time

    /// How often a call tries PostgreSQL again during a spell.
    let retryInterval: Time
    /// When the current spell began, or `nil` while counting in PostgreSQL.
    private(set) var localSince: Time?
    /// When a call is next to try PostgreSQL again.
    private(set) var retryAt: Time = 0
    /// This spell's counts, by key.
    private(set) var states: [String: RateLimitState] = [:]
    /// By key, until when the fleet must hold back once the spell ends: one window after the last slot it granted.
    private(set) var holdUntil: [String: Time] = [:]

    init(retryInterval: Time) { self.retryInterval = retryInterval }

    enum Event: Sendable, Hashable {
        /// A call is about to reserve: where?
        case route(now: Time)
        /// PostgreSQL could not be used.
        case failed(now: Time)
        /// PostgreSQL answered.
        case answered(now: Time)
        /// A call reserves a slot of `share`, whose window is `window`, in this spell's counts.
        case reserveLocally(key: String, share: RateLimit, maxWait: Time, now: Time)
        /// The upstream asked every caller of `key` to wait.
        case pause(key: String, duration: Time, now: Time)
    }

    enum Effect: Sendable, Hashable {
        /// Reserve in PostgreSQL.
        case useShared
        /// Reserve in this spell's counts.
        case useLocal
        /// A spell began with this failure: say so once, then reserve in its counts.
        case beganLocal
        /// Pause each key in PostgreSQL for this long, then reserve again.
        case pauseShared([String: Time])
        /// The answer of a local reservation.
        case decided(RateLimitState.Decision)
        /// Nothing to do.
        case none
    }

    /// Applies `event` and returns what its caller is to do.
    mutating func apply(_ event: Event) -> Effect {
        switch event {
        case .route(let now):
            guard localSince != nil else { return .useShared }
            guard now >= retryAt else { return .useLocal }
            retryAt = now + retryInterval
            return .useShared
        case .failed(let now):
            guard localSince == nil else { return .useLocal }
            localSince = now
            retryAt = now + retryInterval
            return .beganLocal
        case .answered(let now):
            guard localSince != nil else { return .none }
            defer { (localSince, states, holdUntil) = (nil, [:], [:]) }
            let pauses = holdUntil.filter { $0.value > now }.mapValues { $0 - now }
            return pauses.isEmpty ? .none : .pauseShared(pauses)
        case .reserveLocally(let key, let share, let maxWait, let now):
            guard let since = localSince else { return .useShared }
            let window = (share.period + share.margin).wholeMicroseconds
            var state = states[key] ?? RateLimitState(pausedUntil: since + max(0, maxWait) + window)
            defer { states[key] = state }
            let decision = state.apply(
                .reserve(
                    now: now,
                    interval: share.intervalMicroseconds,
                    tolerance: share.toleranceMicroseconds,
                    maxWait: min(maxWait, window)
                )
            )
            if case .send(let wait) = decision { holdUntil[key] = max(holdUntil[key] ?? 0, now + wait + window) }
            return .decided(decision)
        case .pause(let key, let duration, let now):
            guard localSince != nil, states[key] != nil else { return .none }
            _ = states[key]?.apply(.pause(now: now, duration: duration))
            return .none
        }
    }
}

extension RateLimit {
    /// One instance's share of this limit among `instances`: the count and the burst divided (at least 1 each).
    func share(among instances: Int) -> RateLimit {
        let instances = max(1, instances)
        return RateLimit(count / instances, per: period, burst: burst / instances, margin: margin)
    }
}
#endif
