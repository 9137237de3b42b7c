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

/// The leases and the results of the trips on their way, by number, under one lock: a trip is listed in the same
/// step that starts it, and unlisted in the same step that reports it.
struct LeaseBook: Sendable {
    /// A trip to start: its number, the key and how many slots, and where its answer goes.
    typealias Trip = (trip: UInt64, key: String, count: Int, result: SharedResult<LeaseAnswer>)

    var leases: RateLimitLeases
    var trips: [UInt64: SharedResult<LeaseAnswer>] = [:]

    /// Applies `event`: the call's grant or refusal if it has one, each trip to start (listed), and the trip the
    /// call is to wait for otherwise.
    mutating func reserve(_ event: RateLimitLeases.Event) -> (
        grant: RateLimitGrant?, start: [Trip], awaited: SharedResult<LeaseAnswer>?
    ) {
        var (grant, start, awaited): (RateLimitGrant?, [Trip], SharedResult<LeaseAnswer>?) = (nil, [], nil)
        for effect in leases.apply(event) {
            switch effect {
            case .send(let wait, let early): grant = .send(after: .microseconds(wait), early: .microseconds(early))
            case .refuse(let wait): grant = .refused(nextSlotIn: .microseconds(wait))
            case .lease(let key, let trip, let count):
                let result = SharedResult<LeaseAnswer>()
                trips[trip] = result
                start.append((trip, key, count, result))
            case .await(let trip): awaited = trips[trip]
            }
        }
        return (grant, start, awaited)
    }
}

extension PostgresRateLimits {
    /// A slot from the blocks this instance leased (``RateLimitLeases``): taken here when one is in hand, or after a
    /// trip (its own or another call's) that leases more.
    func reserveLeased(_ key: String, _ limit: RateLimit, _ maxWait: Duration) async throws(EndpointError)
        -> RateLimitGrant
    {
        let lateness = (limit.margin / 2).wholeMicroseconds
        while true {
            let now = now()
            let (grant, start, awaited) = leases.withLock { book in
                // Read under the leases' lock (the one place the two locks nest, in this order): a trip narrows the
                // offset before it lists its block, so every block in hand has a range to place it by.
                let clock = offset.withLock { $0.range(at: now) } ?? ClockRange(lowest: 0, highest: 0)
                return book.reserve(
                    .reserve(
                        key: key,
                        now: now,
                        maxWait: maxWait.wholeMicroseconds,
                        lateness: lateness,
                        most: limit.count,
                        clock: clock
                    )
                )
            }
            // Every trip is started before the call goes on: one started beside a grant is the next lease.
            for trip in start { startTrip(trip, limit, maxWait) }
            if let grant { return grant }
            guard let trip = awaited else { continue }
            let answer: LeaseAnswer
            do { answer = try await trip.value() } catch let error as EndpointError { throw error } catch {
                throw EndpointError(.cancelled, "the call was cancelled while leasing slots of the rate limit \(key)")
            }
            if case .refused(let firstIn) = answer, firstIn > maxWait.wholeMicroseconds {
                return .refused(nextSlotIn: .microseconds(firstIn))
            }
        }
    }

    /// Starts `trip`, which leases up to its count of slots of its key, reports them to ``leases`` and hands its
    /// answer to its result, in a task the storage owns. The block stays on the database's clock; its answer narrows
    /// ``offset``, which places each of its slots when a call takes it.
    private func startTrip(_ trip: LeaseBook.Trip, _ limit: RateLimit, _ maxWait: Duration) {
        let (number, key, count, result) = trip
        let query: PostgresQuery = """
            SELECT r.base, r.floor, r.taken, r.ran, \(unescaped: Self.statementStart) \
            FROM \(unescaped: configuration.schema).ratelimit_lease(\(key), \(limit.intervalMicroseconds), \
            \(limit.toleranceMicroseconds), \(maxWait.wholeMicroseconds), \(count)) r
            """
        let (postgres, logger, timeout, start) = (postgres, logger, configuration.timeout, start)
        let (leases, offset, interval) = (leases, offset, limit.intervalMicroseconds)
        tripOwner.run {
            var block: RateLimitBlock?
            let answer: Result<LeaseAnswer, any Error>
            do {
                let row = try await Self.lease(
                    query,
                    key: key,
                    postgres: postgres,
                    logger: logger,
                    within: timeout,
                    start: start
                )
                let clock = row.clock
                _ = offset.withLock { $0.observe(read: clock.read, sent: clock.sent, answered: clock.answered) }
                if row.taken > 0 {
                    block = RateLimitBlock(
                        base: clock.read + row.base,
                        floor: clock.read + row.floor,
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
            leases.withLock { book in
                _ = book.leases.apply(.leased(key: key, trip: number, block: block))
                book.trips[number] = nil
            }
            result.resolve(answer)
        }
    }

    /// One lease statement, and its reading of the database's clock.
    private static func lease(
        _ query: PostgresQuery,
        key: String,
        postgres: PostgresClient,
        logger: Logger,
        within timeout: Duration,
        start: ContinuousClock.Instant
    ) async throws(EndpointError) -> (base: Int64, floor: Int64, taken: Int, clock: ClockReading) {
        try await shared("the rate limit \(key) could not be leased", within: timeout) {
            try await postgres.withConnection { connection in
                let sent = now(since: start)
                let rows = try await connection.query(query, logger: logger)
                    .decode((Int64, Int64, Int64, Int64, Int64).self)
                for try await (base, floor, taken, ran, statement) in rows {
                    return (
                        base, floor, Int(taken), ClockReading(statement, ran: ran, sent: sent, at: now(since: start))
                    )
                }
                throw EndpointError(.storageFailed, "ratelimit_lease answered no row")
            }
        }
    }
}
#endif
