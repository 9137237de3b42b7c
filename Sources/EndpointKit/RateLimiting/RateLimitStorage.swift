/// Where ``RateLimiter`` keeps its limits: in this process (``MemoryRateLimitStorage``), or shared by a fleet
/// (EndpointKitPostgres's `PostgresRateLimits`), so that every instance counts against the same limit.
///
/// A storage hands out slots in the order callers ask (see ``RateLimit`` for how they are spaced) and remembers
/// when the upstream asked every caller to wait. Every instance that shares a key must use the same
/// ``RateLimit`` for it.
public protocol RateLimitStorage: Sendable {
    /// Reserves the next slot of `limit` under `key`, or refuses when it is more than `maxWait` away (then nothing
    /// is reserved). The answer counts from the moment it returns: a storage that cannot tell exactly when its slot
    /// was decided (a database's answer takes a while to arrive) gives the latest the slot can be, so that a call
    /// never goes early, and how much earlier it may have been.
    func reserve(_ key: String, limit: RateLimit, maxWait: Duration) async throws(EndpointError) -> RateLimitGrant

    /// Makes every caller of `key` wait `duration` from now, in every instance that shares this storage.
    func pause(_ key: String, for duration: Duration) async throws(EndpointError)

    /// How much longer `key` is paused as far as this instance knows without asking anyone, or `nil` when it is
    /// not: a caller that waited for its slot looks here before it sends.
    func pauseRemaining(_ key: String) -> Duration?
}

/// A storage's answer to ``RateLimitStorage/reserve(_:limit:maxWait:)``.
public enum RateLimitGrant: Sendable, Hashable {
    /// The slot is at most `after` from now: wait that long, then send. It may have been up to `early` sooner (what
    /// the storage cannot tell of where the slot lies on this process's clock, and how long ago it passed), which
    /// counts as lateness against the limit's margin.
    case send(after: Duration, early: Duration = .zero)
    /// The first free slot is this far from now, beyond the caller's `maxWait`; nothing was reserved.
    case refused(nextSlotIn: Duration)
}

extension RateLimitGrant {
    /// The grant a ``RateLimitState`` decision stands for.
    package init(_ decision: RateLimitState.Decision) {
        switch decision {
        case .send(let wait): self = .send(after: .microseconds(wait), early: .zero)
        case .refuse(let wait), .paused(until: let wait): self = .refused(nextSlotIn: .microseconds(wait))
        }
    }
}
