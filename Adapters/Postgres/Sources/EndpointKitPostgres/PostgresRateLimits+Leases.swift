#if Postgres
import EndpointKit
import Logging
import PostgresNIO

/// What a lease trip found.
enum LeaseAnswer: Sendable {
    /// It leased a block, now in hand.
    case leased
    /// Even the first slot was this many microseconds away, beyond the `maxWait` it asked with; nothing was taken.
    case refused(firstIn: RateLimitState.Time)
}

extension PostgresRateLimits {
    /// A slot from the blocks this instance leased (``RateLimitLeases``): taken here when one is in hand, or after a
    /// trip (its own or another call's) that leases more.
    func reserveLeased(_ key: String, _ limit: RateLimit, _ maxWait: Duration) async throws(EndpointError)
        -> RateLimitGrant
    {
        let lateness = (limit.margin / 2).wholeMicroseconds
        while true {
            let effects = leases.withLock {
                $0.apply(.reserve(key: key, now: now(), maxWait: maxWait.wholeMicroseconds, lateness: lateness))
            }
            var (grant, awaited): (RateLimitGrant?, UInt64?)
            // Every effect is carried out before the call goes on: a trip started beside a grant is the next lease.
            for effect in effects {
                switch effect {
                case .send(let wait, let early): grant = .send(after: .microseconds(wait), early: .microseconds(early))
                case .refuse(let wait): grant = .refused(nextSlotIn: .microseconds(wait))
                case .lease(let key, let trip, let count): startTrip(trip, key: key, count: count, limit, maxWait)
                case .await(let trip): awaited = trip
                }
            }
            if let grant { return grant }
            guard let awaited, let trip = trips.withLock({ $0[awaited] }) else { continue }
            let answer: LeaseAnswer
            do { answer = try await trip.value() } catch let error as EndpointError { throw error } catch {
                throw EndpointError(.cancelled, "the call was cancelled while leasing slots of the rate limit \(key)")
            }
            if case .refused(let firstIn) = answer, firstIn > maxWait.wholeMicroseconds {
                return .refused(nextSlotIn: .microseconds(firstIn))
            }
        }
    }

    /// Starts trip `trip`, which leases up to `count` slots of `key` and reports them to ``leases``, in a task the
    /// storage owns; the calls that wait for it find it in ``trips`` until it has reported.
    private func startTrip(_ trip: UInt64, key: String, count: Int, _ limit: RateLimit, _ maxWait: Duration) {
        let result = SharedResult<LeaseAnswer>()
        trips.withLock { $0[trip] = result }
        let query: PostgresQuery = """
            SELECT base, floor, taken, ran FROM \(unescaped: configuration.schema).ratelimit_lease(\(key), \
            \(limit.intervalMicroseconds), \(limit.toleranceMicroseconds), \(maxWait.wholeMicroseconds), \(count))
            """
        let (postgres, logger, timeout, start) = (postgres, logger, configuration.timeout, start)
        let (leases, trips, interval) = (leases, trips, limit.intervalMicroseconds)
        tripOwner.run {
            var block: RateLimitBlock?
            var early: RateLimitState.Time = 0
            let answer: Result<LeaseAnswer, any Error>
            do {
                let row = try await Self.lease(query, key: key, postgres: postgres, logger: logger, within: timeout)
                let answered = Self.now(since: start)
                early = row.sinceRead.wholeMicroseconds
                if row.taken > 0 {
                    block = RateLimitBlock(
                        base: answered + row.base,
                        floor: answered + row.floor,
                        interval: interval,
                        count: row.taken
                    )
                    answer = .success(.leased)
                } else {
                    answer = .success(.refused(firstIn: row.floor))
                }
            } catch {
                logger.debug("rate limit \(key): a lease of \(count) slot(s) failed: \(error)")
                answer = .failure(error)
            }
            _ = leases.withLock { $0.apply(.leased(key: key, trip: trip, block: block, early: early)) }
            trips.withLock { $0[trip] = nil }
            result.resolve(answer)
        }
    }

    /// One lease statement, and how long before its answer arrived the statement read the database's clock (see
    /// `reserveShared`).
    private static func lease(
        _ query: PostgresQuery,
        key: String,
        postgres: PostgresClient,
        logger: Logger,
        within timeout: Duration
    ) async throws(EndpointError) -> (base: Int64, floor: Int64, taken: Int, sinceRead: Duration) {
        try await shared("the rate limit \(key) could not be leased", within: timeout) {
            try await postgres.withConnection { connection in
                let started = ContinuousClock.now
                let rows = try await connection.query(query, logger: logger).decode((Int64, Int64, Int64, Int64).self)
                for try await (base, floor, taken, ran) in rows {
                    let sinceRead = started.duration(to: .now) - .microseconds(max(0, ran))
                    return (base, floor, Int(taken), sinceRead)
                }
                throw EndpointError(.storageFailed, "ratelimit_lease answered no row")
            }
        }
    }
}
#endif
