/// One rate limit's state, changed only by ``apply(_:)``, which returns what the caller is to do.
///
/// GCRA: ``arrival`` is the theoretical arrival time, when the limit would be at rest again if no request came.
/// A request is given the slot `max(now, arrival − tolerance, pausedUntil)`, and `arrival` moves on to
/// `max(arrival, slot) + interval`. Slots are handed out in the order requests ask, so a caller waits for its own
/// slot and asks only once. Every storage keeps a limit this way: ``MemoryRateLimitStorage`` with this value, and
/// EndpointKitPostgres with a statement that the tests hold to this value's answers.
///
/// Times are microseconds on the storage's own timeline (the process's clock, or the database's).
package struct RateLimitState: Sendable, Hashable {
    /// Microseconds on the storage's timeline.
    package typealias Time = Int64

    /// The theoretical arrival time.
    package var arrival: Time = 0
    /// Until when the upstream asked every caller of this limit to wait.
    package var pausedUntil: Time = 0

    package init(arrival: Time = 0, pausedUntil: Time = 0) {
        self.arrival = arrival
        self.pausedUntil = pausedUntil
    }

    /// What happened.
    package enum Event: Sendable, Hashable {
        /// A caller asks for a slot at `now`, and waits at most `maxWait` for it.
        case reserve(now: Time, interval: Time, tolerance: Time, maxWait: Time)
        /// The upstream asked to wait `duration` from `now`.
        case pause(now: Time, duration: Time)
    }

    /// What the caller is to do.
    package enum Decision: Sendable, Hashable {
        /// Send after waiting `wait` (zero: now).
        case send(wait: Time)
        /// Do not send: the first free slot is `wait` away, beyond the caller's `maxWait`. Nothing was reserved.
        case refuse(wait: Time)
        /// Every caller waits until `until`.
        case paused(until: Time)
    }

    /// Applies `event` and returns what its caller is to do.
    package mutating func apply(_ event: Event) -> Decision {
        switch event {
        case .reserve(let now, let interval, let tolerance, let maxWait):
            let slot = max(now, arrival - tolerance, pausedUntil)
            guard slot - now <= maxWait else { return .refuse(wait: slot - now) }
            arrival = max(arrival, slot) + interval
            return .send(wait: slot - now)
        case .pause(let now, let duration):
            pausedUntil = max(pausedUntil, now + max(0, duration))
            return .paused(until: pausedUntil)
        }
    }
}
