#if Postgres && AsyncHTTPClient
import EndpointKit
import EndpointKitPostgres
import Foundation
import PostgresNIO
import Testing

/// Answers that arrive slowly after the database read its clock, against the real PostgreSQL: the slot the database
/// gave is placed by what quicker answers told of the two clocks, not as late as the slow answer came.
@Suite(.timeLimit(.minutes(3))) struct PostgresRateLimitSlowAnswerTests {
    @Test(
        "Answers 100 ms slow after the clock was read (commit_delay) do not make slots late: 8 calls all sent",
        arguments: Reservations.all
    )
    func slowAnswers(_ reservations: Reservations) async throws {
        let fixture = try FleetFixture(.asyncHTTPClient)
        try await fixture.warmUp(2)
        // One connection, so that a setting of the test's reaches every statement of the limits.
        var configuration = try TestDatabase.configuration()
        configuration.options.maximumConnections = 1
        let single = PostgresClient(configuration: configuration)
        try await TestDatabase.with { database in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await single.run() }
                defer { group.cancelAll() }
                let limits = try PostgresRateLimits(
                    postgres: single,
                    configuration: PostgresRateLimitConfiguration(
                        schema: database.schema,
                        timeout: .seconds(5),
                        reservation: reservations.value
                    )
                )
                try await limits.prepare()
                // A slot reached more than 95 ms late is given up: the slow answers below come 100 ms late, and on
                // this machine, with the suites beside this one, a call may wake some tens of milliseconds late.
                let limit = RateLimit(5, per: .seconds(1), margin: .milliseconds(190))
                let limiter = RateLimiter(limit, key: fixture.key, storage: limits)
                let client = fixture.client(limitedBy: limiter)
                let endpoint = fixture.limited(limit: 5, period: .seconds(1), instance: "a")
                // Quick answers first: they tell how this process's clock stands to the database's. Their commits
                // wait for no disk flush, which the suites beside this one make slow.
                try await single.query("SET synchronous_commit = off", logger: database.logger)
                for _ in 0..<5 { _ = try await client.response(for: endpoint) }
                // From now on each statement's commit, after it read the clock, flushes and first waits 100 ms (the
                // most it can).
                try await single.query("SET synchronous_commit = on", logger: database.logger)
                try await single.query("SET commit_siblings = 0", logger: database.logger)
                try await single.query("SET commit_delay = 100000", logger: database.logger)
                let delay = try await Self.setting("commit_delay", on: single, database)
                let siblings = try await Self.setting("commit_siblings", on: single, database)
                #expect(
                    delay == "100000" && siblings == "0",
                    "\(String(describing: delay)) \(String(describing: siblings))"
                )
                let quick = limiter.retakenSlots
                try await withThrowingTaskGroup(of: Void.self) { callers in
                    for _ in 0..<2 {
                        callers.addTask { for _ in 0..<4 { _ = try await client.response(for: endpoint) } }
                    }
                    try await callers.waitForAll()
                }
                // Before slots were placed by the quicker answers, each slow answer's slots were all 100 ms late:
                // every call gave up 8 in a row and failed. Now most slots are kept (a call that wakes late on this
                // loaded machine may still give one up).
                let retaken = limiter.retakenSlots - quick
                #expect(retaken < 8, "slots given up as late: \(retaken), for 8 calls")
                let window = try await fixture.window(.seconds(1))
                #expect(window.count == 13 && window.max <= 5 && window.over == 0, "\(window)")
            }
        }
    }

    /// A setting as the pool's one connection has it.
    static func setting(_ name: String, on postgres: PostgresClient, _ database: TestDatabase) async throws -> String? {
        let rows = try await postgres.query(PostgresQuery(unsafeSQL: "SHOW \(name)"), logger: database.logger)
        for try await value in rows.decode(String.self) { return value }
        return nil
    }
}
#endif
