#if Postgres
import EndpointKit

/// A block of consecutive GCRA slots one reservation took: what `ratelimit_lease` answers and ``RateLimitLeases``
/// hands out. Slot `k` (from 0) is at `max(floor, base + k × interval)`, for `k` below `count`.
struct RateLimitBlock: Sendable, Hashable {
    /// Where the spaced slots would begin: the limit's arrival time, less its tolerance.
    var base: RateLimitState.Time
    /// No slot is before this: the time the block was taken, or the end of a pause.
    var floor: RateLimitState.Time
    /// The time between two slots.
    var interval: RateLimitState.Time
    /// How many slots the block holds.
    var count: Int

    /// The time of slot `k`.
    func slot(_ k: Int) -> RateLimitState.Time { max(floor, base + RateLimitState.Time(k) * interval) }
}

extension RateLimitState {
    /// Takes up to `count` slots at once, the slots `count` reservations at `now` would each have been given, as
    /// many of them as lie within `maxWait`; `nil` (nothing taken) when even the first is further away, with its
    /// wait. What `ratelimit_lease` does in one statement; the tests hold it to this.
    ///
    /// Why the block is what separate reservations would give: the first slot is `max(now, arrival − tolerance,
    /// pausedUntil)`; after it the arrival time is `b + interval` with `b = max(arrival, now, pausedUntil)`, and
    /// each slot after that `max(now, pausedUntil, b + k × interval − tolerance)`, which moves the arrival time on
    /// by one interval each. So the fleet's slots stay a sequence GCRA accepts, whoever takes them.
    mutating func lease(now: Time, interval: Time, tolerance: Time, maxWait: Time, count: Int) -> (
        block: RateLimitBlock?, firstWait: Time
    ) {
        let floor = max(now, pausedUntil)
        let first = max(floor, arrival - tolerance)
        guard first - now <= maxWait else { return (nil, first - now) }
        let start = max(arrival, floor)
        let base = start - tolerance
        let fitting = 1 + (now + maxWait - base) / max(1, interval)
        let taken = Int(min(Int64(max(1, count)), max(1, fitting)))
        arrival = start + Time(taken) * interval
        return (RateLimitBlock(base: base, floor: floor, interval: interval, count: taken), first - now)
    }
}
#endif
