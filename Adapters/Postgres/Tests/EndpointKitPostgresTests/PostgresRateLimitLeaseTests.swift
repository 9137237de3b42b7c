#if Postgres && AsyncHTTPClient
import EndpointKit
import EndpointKitTesting
import Foundation
import PostgresNIO
import Testing

@testable import EndpointKitPostgres

/// Slots leased in blocks (`PostgresRateLimitConfiguration.Reservation.leased`), against the real PostgreSQL.
@Suite(.timeLimit(.minutes(3))) struct PostgresRateLimitLeaseTests {
    @Test("The lease statement takes the block RateLimitState.lease takes, between reservations and pauses (seeded)")
    func sameAsTheTransition() async throws {
        try await TestDatabase.with { database in
            _ = try await database.rateLimits()
            for seed: UInt64 in [3, 20_261_203, 0xBEEF] {
                print("PostgresRateLimitLeaseTests.sameAsTheTransition seed \(seed)")
                var random = SeededGenerator(seed: seed)
                let limit = RateLimit.random(using: &random)
                let (interval, tolerance) = (limit.intervalMicroseconds, limit.toleranceMicroseconds)
                var model = RateLimitState()
                var now: Int64 = 1_000_000
                let key = "k\(seed)"
                for step in 0..<400 {
                    now += Int64.random(in: 0...interval * 4, using: &random)
                    let maxWait = Int64.random(in: 0...limit.period.wholeMicroseconds * 2, using: &random)
                    switch Int.random(in: 0..<10, using: &random) {
                    case 0:
                        let duration = Int64.random(in: 0...limit.period.wholeMicroseconds, using: &random)
                        _ = model.apply(.pause(now: now, duration: duration))
                        try await database.execute(
                            "SELECT \(database.schema).ratelimit_pause('\(key)', \(duration), \(now))"
                        )
                    case 1:
                        _ = model.apply(.reserve(now: now, interval: interval, tolerance: tolerance, maxWait: maxWait))
                        try await database.execute(
                            """
                            SELECT \(database.schema).ratelimit_reserve('\(key)', \(interval), \(tolerance), \
                            \(maxWait), \(now))
                            """
                        )
                    default:
                        let asked = Int.random(in: 1...20, using: &random)
                        let (block, firstWait) = model.lease(
                            now: now,
                            interval: interval,
                            tolerance: tolerance,
                            maxWait: maxWait,
                            count: asked
                        )
                        let wanted =
                            block.map { "\($0.base - now) \($0.floor - now) \($0.count)" } ?? "0 \(firstWait) 0"
                        let answer = try await database.texts(
                            """
                            SELECT base || ' ' || floor || ' ' || taken FROM \(database.schema).ratelimit_lease(\
                            '\(key)', \(interval), \(tolerance), \(maxWait), \(asked), \(now))
                            """
                        )
                        #expect(answer == [wanted], "seed \(seed), step \(step), \(limit)")
                        if answer != [wanted] { return }
                    }
                }
            }
        }
    }

    @Test("With leases most calls take their slot without a trip: 64 calls of 16 at once, a trip for several each")
    func fewTrips() async throws {
        let fixture = try FleetFixture(.asyncHTTPClient)
        try await fixture.warmUp(16)
        try await TestDatabase.with { database in
            let limits = try await database.rateLimits(reservation: .leased(maximumSlots: 16))
            let limit = RateLimit(100, per: .seconds(1), margin: Reservations.leased.margin)
            let client = fixture.client(limitedBy: RateLimiter(limit, key: fixture.key, storage: limits))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<16 {
                    group.addTask {
                        for _ in 0..<4 {
                            _ = try await client.response(
                                for: fixture.limited(limit: 100, period: .seconds(1), instance: "a")
                            )
                        }
                    }
                }
                try await group.waitForAll()
            }
            let trips = limits.leases.withLock { $0.leases.lastTrip }
            // One trip per call would be 64 or more (a slot given up as late takes another): at most one per two.
            #expect(trips <= 32, "\(trips) trips for 64 calls")
            let window = try await fixture.window(.seconds(1))
            #expect(window.count == 64)
            #expect(window.max <= 100)
            #expect(window.over == 0)
        }
    }

    @Test("A call cancelled while it waits for a lease ends at once as cancelled; the trip goes on for other calls")
    func cancelledWhileLeasing() async throws {
        try await TestDatabase.with { database in
            // Leases of one slot: no trip starts beside a grant, so none is on its way when the row is locked.
            let limits = try await database.rateLimits(reservation: .leased(maximumSlots: 1))
            let limit = RateLimit(10, per: .seconds(1))
            _ = try await limits.reserve("k", limit: limit, maxWait: .seconds(1))
            #expect(limits.leases.withLock { $0.leases.leases["k"]?.trip } == nil)
            try await database.withLockedRow("k") {
                let first = Task { try await limits.reserve("k", limit: limit, maxWait: .seconds(30)) }
                first.cancel()
                let error = try await #require(throws: EndpointError.self) { try await first.value }
                #expect(error.kind == .cancelled)
                // The lease it started is still on its way (the row is still locked), for the calls after it.
                let trip = try #require(limits.leases.withLock { $0.leases.leases["k"]?.trip })
                #expect(limits.leases.withLock { $0.trips[trip] } != nil)
                return Task { try await limits.reserve("k", limit: limit, maxWait: .seconds(30)) }
            } then: { second in
                guard case .send = try await second.value else {
                    Issue.record("the second call was refused")
                    return
                }
            }
        }
    }

    @Test("A schema at version 1 gains the lease statement when prepared, and leases work on it")
    func migratesFromVersionOne() async throws {
        try await TestDatabase.with { database in
            _ = try await database.rateLimits()
            try await database.execute("DROP FUNCTION \(database.schema).ratelimit_lease")
            try await database.execute("UPDATE \(database.schema).ratelimit_version SET version = 1")
            let limits = try await database.rateLimits(reservation: .leased(maximumSlots: 16))
            let limit = RateLimit(10, per: .seconds(1), margin: Reservations.leased.margin)
            guard case .send = try await limits.reserve("k", limit: limit, maxWait: .seconds(5))
            else {
                Issue.record("the first call after the migration was refused")
                return
            }
            #expect(try await database.texts("SELECT version::text FROM \(database.schema).ratelimit_version") == ["2"])
        }
    }
}

extension TestDatabase {
    /// Runs `body` while an open transaction holds the lock of rate limit `key`'s row, then ends the transaction
    /// (however `body` ends) and runs `then` with what `body` returned.
    func withLockedRow<T: Sendable>(
        _ key: String,
        _ body: () async throws -> T,
        then: (T) async throws -> Void
    ) async throws {
        let value = try await client.withConnection { connection in
            _ = try await connection.query("BEGIN", logger: logger)
            do {
                _ = try await connection.query(
                    PostgresQuery(unsafeSQL: "SELECT 1 FROM \(schema).ratelimit_keys WHERE key = '\(key)' FOR UPDATE"),
                    logger: logger
                )
                let value = try await body()
                _ = try await connection.query("ROLLBACK", logger: logger)
                return value
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
        try await then(value)
    }
}
#endif
