#if Postgres
import EndpointKit

/// The blocks of slots this instance leased from PostgreSQL, by key, and the trips that lease more; changed only by
/// ``apply(_:)``, which returns what to do (``PostgresRateLimitConfiguration/Reservation/leased(maximumSlots:)``).
///
/// - A call takes the first slot in hand that it can still keep: a slot passed by more than the lateness the limiter
///   allows is dropped (``Lease/wasted``), one that lies beyond the call's `maxWait` refuses the call and stays in
///   hand.
/// - With no slot in hand, one call starts a trip (`lease`) and the others wait for it (`await`); a trip asks for
///   ``Lease/size`` slots, or as many as calls are waiting, up to ``maximumSlots`` and never more than the limit's
///   count (a window's slots: a slow limit is leased a slot at a time, as one trip per call would take it).
/// - Once less than a lease is left in hand, the next trip starts at once (only once a lease is two slots or more):
///   a busy instance keeps up to two leases ahead, so that its calls rarely wait for a trip, even a slow one.
/// - A lease that arrives with calls waiting for it doubles the size (or raises it to the calls that waited);
///   otherwise slots dropped unused since the last lease halve it. A trip that failed or was refused leaves it.
///
/// Blocks are kept on the database's clock and placed on the process's when a slot is handed out, with the range
/// the answers so far leave for the offset between the two (``ClockRange``): a block leased while only slow answers
/// had come is placed as precisely as the quickest answer before each of its slots. Other times are microseconds of
/// the process's clock.
struct RateLimitLeases: Sendable, Hashable {
    typealias Time = RateLimitState.Time

    /// A block in hand, on the database's clock, and how many of its slots were taken.
    struct Held: Sendable, Hashable {
        var block: RateLimitBlock
        var taken = 0
    }

    /// One key's slots and trips.
    struct Lease: Sendable, Hashable {
        /// Blocks in hand, oldest first.
        var blocks: [Held] = []
        /// The trip on its way, if one is.
        var trip: UInt64?
        /// How many slots the next trip asks for.
        var size = 1
        /// How many calls wait for the trip on its way.
        var waiting = 0
        /// Slots dropped unused since the last trip ended.
        var wasted = 0

        /// Slots in hand, not yet taken.
        var inHand: Int { blocks.reduce(0) { $0 + $1.block.count - $1.taken } }
    }

    /// The most slots one trip asks for.
    let maximumSlots: Int
    /// By key.
    private(set) var leases: [String: Lease] = [:]
    /// The number of the latest trip.
    private(set) var lastTrip: UInt64 = 0

    init(maximumSlots: Int) { self.maximumSlots = max(1, maximumSlots) }

    enum Event: Sendable, Hashable {
        /// A call asks for a slot of `key`, waits at most `maxWait`, and may send up to `lateness` after its slot; a
        /// trip for the key asks for at most `most` slots (the limit's count: a lease never holds more than a window).
        /// `clock` places the blocks' slots on this process's clock.
        case reserve(key: String, now: Time, maxWait: Time, lateness: Time, most: Int, clock: ClockRange)
        /// A trip ended: it leased `block` (on the database's clock), or nothing (`nil`).
        case leased(key: String, trip: UInt64, block: RateLimitBlock?)
    }

    enum Effect: Sendable, Hashable {
        /// The call sends after `wait`; its slot may have been up to `early` sooner.
        case send(wait: Time, early: Time)
        /// The call's first slot in hand is `wait` away, beyond its `maxWait`.
        case refuse(wait: Time)
        /// Lease `count` slots of `key` (trip number `trip`), then report ``Event/leased(key:trip:block:)``.
        case lease(key: String, trip: UInt64, count: Int)
        /// The call waits for trip `trip`, then asks again.
        case await(trip: UInt64)
    }

    /// Applies `event` and returns what its caller is to do, in order.
    mutating func apply(_ event: Event) -> [Effect] {
        switch event {
        case .reserve(let key, let now, let maxWait, let lateness, let most, let clock):
            var lease = leases[key] ?? Lease()
            defer { leases[key] = lease }
            let call = Call(now: now, maxWait: maxWait, lateness: lateness, clock: clock)
            return reserve(&lease, key: key, call, most: most)
        case .leased(let key, let trip, let block):
            guard var lease = leases[key], lease.trip == trip else { return [] }
            // A trip that failed or was refused says nothing of how many slots the calls need.
            if let block {
                if lease.waiting > 0 {
                    lease.size = min(maximumSlots, max(2 * lease.size, lease.waiting))
                } else if lease.wasted > 0 {
                    lease.size = max(1, lease.size / 2)
                }
                lease.blocks.append(Held(block: block))
            }
            (lease.trip, lease.waiting, lease.wasted) = (nil, 0, 0)
            leases[key] = lease
            return []
        }
    }

    /// What a call brings to its reservation.
    struct Call {
        var now: Time
        var maxWait: Time
        var lateness: Time
        var clock: ClockRange
    }

    /// A call's reservation in `lease`.
    private mutating func reserve(_ lease: inout Lease, key: String, _ call: Call, most: Int) -> [Effect] {
        let (now, clock) = (call.now, call.clock)
        dropPassed(&lease, call)
        let most = max(1, min(maximumSlots, most))
        guard let first = lease.blocks.first else {
            if let trip = lease.trip {
                lease.waiting += 1
                return [.await(trip: trip)]
            }
            lease.waiting += 1
            let count = min(most, max(lease.size, lease.waiting))
            return [startTrip(&lease, key: key, count: count), .await(trip: lastTrip)]
        }
        let slot = clock.latest(first.block.slot(first.taken))
        guard slot - now <= call.maxWait else { return [.refuse(wait: slot - now)] }
        lease.blocks[0].taken += 1
        if lease.blocks[0].taken == first.block.count { lease.blocks.removeFirst() }
        var effects: [Effect] = [.send(wait: max(0, slot - now), early: clock.width + max(0, now - slot))]
        let size = min(most, lease.size)
        if lease.trip == nil, size >= 2, lease.inHand < size {
            effects.append(startTrip(&lease, key: key, count: size))
        }
        return effects
    }

    /// Drops the slots a call can no longer keep: passed by more than its `lateness`, the clock range's width
    /// counted. A slot still ahead is handed out even while the range is wide: ``EndpointKit/RateLimiter`` gives up
    /// a late slot and takes another, at most a few times, and the trips meanwhile may narrow the range; dropping
    /// such blocks here would lease again and again, each lease using up slots of the fleet's limit.
    private func dropPassed(_ lease: inout Lease, _ call: Call) {
        while let first = lease.blocks.first {
            let slot = call.clock.latest(first.block.slot(first.taken))
            guard slot < call.now, call.now - slot + call.clock.width > call.lateness else { return }
            lease.wasted += 1
            lease.blocks[0].taken += 1
            if lease.blocks[0].taken == first.block.count { lease.blocks.removeFirst() }
        }
    }

    /// Numbers a new trip for `lease`.
    private mutating func startTrip(_ lease: inout Lease, key: String, count: Int) -> Effect {
        lastTrip += 1
        lease.trip = lastTrip
        return .lease(key: key, trip: lastTrip, count: count)
    }
}
#endif
