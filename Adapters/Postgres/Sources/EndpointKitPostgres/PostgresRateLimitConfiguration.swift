#if Postgres
import EndpointKit

/// Where ``PostgresRateLimits`` keeps its limits, and what it does while PostgreSQL cannot be reached.
public struct PostgresRateLimitConfiguration: Sendable {
    /// What a limit does while PostgreSQL cannot be reached. Never "send as if there were no limit".
    public enum Unreachable: Sendable, Hashable {
        /// Calls wait for PostgreSQL for up to this long, then fail with ``EndpointKit/EndpointError/Kind/rateLimited``
        /// (nothing is sent). The fleet never exceeds the limit, and sends nothing while the database is down.
        case failClosed(waitingUpTo: Duration)
        /// This instance keeps a share of each limit on its own: `count ÷ instances` (at least 1) per period. Slots
        /// PostgreSQL granted before the failure may lie up to the limiter's `maxWait` ahead, so the share's first
        /// slot is `maxWait` and one window (period and margin) after the failure, and calls until then are refused
        /// (``EndpointKit/EndpointError/Kind/rateLimited``, nothing sent): give the limiter a short `maxWait` where
        /// the local share must start soon. A local slot is granted at most one window ahead, and when this instance
        /// reaches PostgreSQL again it pauses each limit it sent on until one window after its last local slot. Give
        /// the number of instances that share the limits: with more, the fleet can exceed the limit; an instance cut
        /// off from PostgreSQL while the others still reach it adds its share to what they send.
        case localShare(instances: Int)
    }

    /// How calls take their slots from PostgreSQL.
    ///
    /// Either way the database gives each slot on its own clock, and the instance places it on its own by what its
    /// answers so far told of the two clocks: a slot is never taken early, and a slow answer after quick ones does
    /// not make its slots late. The margin must still cover the quickest round trip to PostgreSQL: give a limit a
    /// margin of at least twice it.
    public enum Reservation: Sendable, Hashable {
        /// Each call reserves its own slot: one trip to PostgreSQL per call, and the fleet's slots go in the exact
        /// order its calls asked. A call waits for its trip, which under load is several milliseconds.
        case perCall
        /// Each instance leases blocks of consecutive slots, up to `maximumSlots` in one trip, and hands them to its
        /// own calls: most calls take a slot without a trip, and the next block is leased as soon as less than a
        /// block is left. The slots are those separate reservations would have been given, so the limit is kept
        /// exactly as with ``perCall``; what changes is who gets them. A lease grows (doubling) while calls wait for
        /// one, never past the limit's count, and halves when slots pass unused, so an instance with few calls (or a
        /// limit of one a window) leases one slot at a time. A slot one instance leased and did not use is lost to
        /// the fleet (up to two leases per instance when its calls stop), and an instance's calls may wait behind
        /// slots another holds.
        case leased(maximumSlots: Int)
    }

    /// The schema the limits' table lives in, made if missing: a lowercase SQL identifier of at most 48 characters.
    /// Instances that share limits name the same one; it may be the outbox's.
    public var schema: String
    /// How long a trip to PostgreSQL may take before it counts as unreachable.
    public var timeout: Duration
    /// What calls do while PostgreSQL cannot be reached.
    public var whenUnreachable: Unreachable
    /// While keeping a local share, how often one call tries PostgreSQL again.
    public var retryInterval: Duration
    /// How long the listening connection waits before it listens again after it was lost.
    public var listenRetryInterval: Duration
    /// How calls take their slots: leased in blocks of up to 16 by default (``Reservation/leased(maximumSlots:)``).
    public var reservation: Reservation

    /// The defaults: schema `endpointkit`, a second for PostgreSQL to answer, failing closed after 5 s, PostgreSQL
    /// tried again every second, slots leased in blocks of up to 16.
    public init(
        schema: String = "endpointkit",
        timeout: Duration = .seconds(1),
        whenUnreachable: Unreachable = .failClosed(waitingUpTo: .seconds(5)),
        retryInterval: Duration = .seconds(1),
        listenRetryInterval: Duration = .seconds(1),
        reservation: Reservation = .leased(maximumSlots: 16)
    ) {
        self.schema = schema
        self.timeout = timeout
        self.whenUnreachable = whenUnreachable
        self.retryInterval = retryInterval
        self.listenRetryInterval = listenRetryInterval
        self.reservation = reservation
    }

    /// Why the configuration cannot be used, if it cannot.
    var problem: String? {
        if let problem = schemaNameProblem(schema, of: "rate limit") { return problem }
        if timeout <= .zero || retryInterval <= .zero || listenRetryInterval <= .zero {
            return "the rate limits' timeout or retry intervals are not positive"
        }
        if case .leased(let slots) = reservation, !(1...1_000).contains(slots) {
            return "the rate limits' lease is not between 1 and 1,000 slots"
        }
        switch whenUnreachable {
        case .failClosed(let wait) where wait < .zero: return "the rate limits' fail-closed wait is negative"
        case .localShare(let instances) where instances < 1: return "the rate limits' local share has no instance"
        default: return nil
        }
    }
}
#endif
