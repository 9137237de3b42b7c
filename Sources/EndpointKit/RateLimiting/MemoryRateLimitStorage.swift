/// Keeps rate limits in this process: one GCRA state per key (see ``RateLimit``), on the timeline of a clock.
///
///     let limits = MemoryRateLimitStorage()
///     let limiter = RateLimiter(RateLimit(100, per: .seconds(1)), key: "api", storage: limits)
///     let client = EndpointClient(environment: env, middleware: [Retry(), limiter])
///
/// Share one storage between clients that call the same upstream with the same limit. For a fleet of processes
/// use a shared storage (EndpointKitPostgres's `PostgresRateLimits`).
public final class MemoryRateLimitStorage: RateLimitStorage {
    private let states = Locked([String: RateLimitState]())
    private let now: @Sendable () -> RateLimitState.Time

    /// Creates an empty storage whose slots are times of `clock` (give tests the client's `TestClock`).
    public init<C: Clock<Duration>>(clock: C = ContinuousClock()) {
        let start = clock.now
        // Slots count from a microsecond after the start, so that a fresh state (times of 0) is in the past.
        now = { start.duration(to: clock.now).wholeMicroseconds + 1 }
    }

    /// Reserves the next slot, or refuses when it is more than `maxWait` away.
    public func reserve(_ key: String, limit: RateLimit, maxWait: Duration) async throws(EndpointError)
        -> RateLimitGrant
    {
        let (interval, tolerance) = (limit.intervalMicroseconds, limit.toleranceMicroseconds)
        return RateLimitGrant(
            apply(to: key) {
                .reserve(now: $0, interval: interval, tolerance: tolerance, maxWait: maxWait.wholeMicroseconds)
            }
        )
    }

    /// Makes every caller of `key` wait `duration` from now.
    public func pause(_ key: String, for duration: Duration) async throws(EndpointError) {
        _ = apply(to: key) { .pause(now: $0, duration: duration.wholeMicroseconds) }
    }

    /// How much longer `key` is paused, or `nil`.
    public func pauseRemaining(_ key: String) -> Duration? {
        let remaining = (states.withLock { $0[key]?.pausedUntil } ?? 0) - now()
        return remaining > 0 ? .microseconds(remaining) : nil
    }

    /// Applies the event `event` makes of the time now, read under the lock: events reach a state in the order
    /// of their times.
    private func apply(to key: String, _ event: (RateLimitState.Time) -> RateLimitState.Event)
        -> RateLimitState.Decision
    {
        states.withLock { states in states[key, default: RateLimitState()].apply(event(now())) }
    }
}
