#if Postgres && AsyncHTTPClient
import EndpointKit
import EndpointKitTesting
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import Testing

@testable import EndpointKitPostgres

/// What the fault server's `/window/KEY` says of what `/limited/KEY` received.
struct UpstreamWindow: Decodable {
    var count: Int
    var max: Int
    var over: Int
    var early: Int
    var by: [String: Int]
}

extension FleetFixture {
    /// A call to the fault server's limited upstream, keeping `limit` per `period`, as instance `instance`.
    func limited(limit: Int, period: Duration, pause: Int = 0, instance: String) -> Endpoint<EndpointKinds.Public, Data>
    {
        Endpoint(
            path: "limited/\(key)",
            queryItems: [
                URLQueryItem(name: "limit", value: String(limit)),
                URLQueryItem(name: "period", value: String(period.wholeMicroseconds / 1000)),
                URLQueryItem(name: "pause", value: String(pause)),
            ],
            headers: ["x-instance": instance]
        )
    }

    /// What the limited upstream received, counted in windows of `period`.
    func window(_ period: Duration) async throws -> UpstreamWindow {
        try await client().response(
            for: Endpoint<EndpointKinds.Public, UpstreamWindow>(
                path: "window/\(key)",
                queryItems: [URLQueryItem(name: "period", value: String(period.wholeMicroseconds / 1000))]
            )
        )
    }

    /// Opens `count` connections to the fault server, as a server that has been running has them: a request on a
    /// connection opened cold can arrive later than a limit's margin allows on a loaded machine.
    func warmUp(_ count: Int) async throws {
        try await withThrowingTaskGroup(of: Void.self) { calls in
            for _ in 0..<count {
                calls.addTask {
                    _ = try await client().response(for: Endpoint<EndpointKinds.Public, Data>(path: "count/warm-up"))
                }
            }
            try await calls.waitForAll()
        }
    }

    /// A client of the fault server whose calls go through `limiter`.
    func client(limitedBy limiter: RateLimiter) -> EndpointClient {
        var defaults = RequestDefaults()
        defaults.timeout = .seconds(30)
        return EndpointClient(
            environment: ServerEnvironment(baseURL: server),
            transport: transport,
            defaults: defaults,
            middleware: [limiter]
        )
    }
}

extension TestDatabase {
    /// Rate limits on this database's schema, prepared.
    func rateLimits(
        _ unreachable: PostgresRateLimitConfiguration.Unreachable = .failClosed(waitingUpTo: .seconds(5)),
        reservation: PostgresRateLimitConfiguration.Reservation = .perCall
    ) async throws -> PostgresRateLimits {
        let limits = try PostgresRateLimits(
            postgres: client,
            // A trip may take 5 s: the suites beside this one load the machine.
            configuration: PostgresRateLimitConfiguration(
                schema: schema,
                timeout: .seconds(5),
                whenUnreachable: unreachable,
                reservation: reservation
            )
        )
        try await limits.prepare()
        return limits
    }
}

/// How a test's rate limits take their slots: each call its own, or leased in blocks.
enum Reservations: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case perCall, leased

    static let all = allCases

    var value: PostgresRateLimitConfiguration.Reservation {
        switch self {
        case .perCall: .perCall
        case .leased: .leased(maximumSlots: 16)
        }
    }

    var testDescription: String { rawValue }

    /// The limits' margin. Running the suites side by side, this machine answers up to about 50 ms late. A slot is
    /// placed by the quickest answer so far, but an instance's first blocks come before any quick answer: the
    /// leased calls that take their slots then may give up 8 in a row before a quicker answer places the rest, so
    /// a leased limit here needs a margin past that.
    var margin: Duration { self == .leased ? .milliseconds(300) : .milliseconds(50) }
}

extension RateLimit {
    /// A limit of 1 to 20 per 1 ms to 3 s, with a burst of 1 to its count.
    static func random(using random: inout SeededGenerator) -> RateLimit {
        let count = Int.random(in: 1...20, using: &random)
        return RateLimit(
            count,
            per: .milliseconds(Int.random(in: 1...3_000, using: &random)),
            burst: Int.random(in: 1...count, using: &random)
        )
    }
}

/// A storage that calls `reserved` after each reservation of `inner`.
struct SignallingStorage: RateLimitStorage {
    let inner: any RateLimitStorage
    let reserved: @Sendable () -> Void

    func reserve(_ key: String, limit: RateLimit, maxWait: Duration) async throws(EndpointError) -> RateLimitGrant {
        defer { reserved() }
        return try await inner.reserve(key, limit: limit, maxWait: maxWait)
    }

    func pause(_ key: String, for duration: Duration) async throws(EndpointError) {
        try await inner.pause(key, for: duration)
    }

    func pauseRemaining(_ key: String) -> Duration? { inner.pauseRemaining(key) }
}

/// Rate limits on `postgres`, which cannot be reached: each try bounded to 200 ms, then `unreachable`.
func unreachableLimits(_ postgres: PostgresClient, _ unreachable: PostgresRateLimitConfiguration.Unreachable)
    throws -> PostgresRateLimits
{
    try PostgresRateLimits(
        postgres: postgres,
        configuration: PostgresRateLimitConfiguration(timeout: .milliseconds(200), whenUnreachable: unreachable)
    )
}

/// Sends `endpoint` until it is sent, waiting out each refusal of the limiter (`retryAfter`) as a caller would; the
/// refusals it met.
func sendHonouringRefusals(_ client: EndpointClient, _ endpoint: Endpoint<EndpointKinds.Public, Data>) async throws
    -> Int
{
    var refusals = 0
    while true {
        let wait: Duration
        do {
            _ = try await client.response(for: endpoint)
            return refusals
        } catch {
            guard error.kind == .rateLimited, error.statusCode == nil else { throw error }
            wait = error.retryAfter ?? .milliseconds(100)
        }
        refusals += 1
        try await Task.sleep(for: wait)
    }
}

/// A pool on a loopback port where no PostgreSQL listens, running while `body` runs.
func withUnreachableDatabase<T: Sendable>(_ body: @Sendable (PostgresClient) async throws -> T) async throws -> T {
    let client = PostgresClient(
        configuration: PostgresClient.Configuration(
            host: "127.0.0.1",
            port: 1,
            username: "nobody",
            password: nil,
            database: "none",
            tls: .disable
        )
    )
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await client.run() }
        defer { group.cancelAll() }
        return try await body(client)
    }
}

@Suite(.timeLimit(.minutes(3))) struct PostgresRateLimitsTests {
    @Test("The reservation statement answers every event as RateLimitState does (seeded, 3 × 600 events)")
    func sameAsTheTransition() async throws {
        try await TestDatabase.with { database in
            _ = try await database.rateLimits()
            for seed: UInt64 in [7, 20_261_129, 0xC0FFEE] {
                print("PostgresRateLimitsTests.sameAsTheTransition seed \(seed)")
                var random = SeededGenerator(seed: seed)
                let limit = RateLimit.random(using: &random)
                var model = RateLimitState()
                var now: Int64 = 1_000_000
                let key = "k\(seed)"
                for step in 0..<600 {
                    now += Int64.random(in: 0...limit.intervalMicroseconds * 2, using: &random)
                    if Int.random(in: 0..<20, using: &random) == 0 {
                        let duration = Int64.random(in: 0...limit.period.wholeMicroseconds, using: &random)
                        _ = model.apply(.pause(now: now, duration: duration))
                        try await database.execute(
                            "SELECT \(database.schema).ratelimit_pause('\(key)', \(duration), \(now))"
                        )
                        continue
                    }
                    let maxWait = Int64.random(in: 0...limit.period.wholeMicroseconds, using: &random)
                    let expected = model.apply(
                        .reserve(
                            now: now,
                            interval: limit.intervalMicroseconds,
                            tolerance: limit.toleranceMicroseconds,
                            maxWait: maxWait
                        )
                    )
                    let answer = try await database.texts(
                        """
                        SELECT wait::text || ' ' || granted::text FROM \(database.schema).ratelimit_reserve('\(key)', \
                        \(limit.intervalMicroseconds), \(limit.toleranceMicroseconds), \(maxWait), \(now))
                        """
                    )
                    let wanted: String =
                        switch expected {
                        case .send(let wait): "\(wait) true"
                        case .refuse(let wait): "\(wait) false"
                        case .paused: "a pause"
                        }
                    #expect(answer == [wanted], "seed \(seed), step \(step), \(limit)")
                    if answer != [wanted] { return }
                }
            }
        }
    }

    @Test(
        "Two instances share one limit: the upstream never counts more than it in any window",
        arguments: Stack.allCases,
        Reservations.all
    )
    func sharedLimit(stack: Stack, reservation: Reservations) async throws {
        let fixture = try FleetFixture(stack)
        let limit = RateLimit(10, per: .seconds(1), margin: reservation.margin)
        try await fixture.warmUp(16)
        try await TestDatabase.with { database in
            let instances = [
                try await database.rateLimits(reservation: reservation.value),
                try await database.rateLimits(reservation: reservation.value),
            ]
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (number, storage) in instances.enumerated() {
                    let client = fixture.client(limitedBy: RateLimiter(limit, key: fixture.key, storage: storage))
                    for _ in 0..<8 {
                        group.addTask {
                            for _ in 0..<3 {
                                _ = try await client.response(
                                    for: fixture.limited(limit: 10, period: .seconds(1), instance: "i\(number)")
                                )
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let window = try await fixture.window(.seconds(1))
            #expect(window.count == 48)
            #expect(window.max <= 10, "the upstream counted \(window.max) in one second")
            #expect(window.over == 0)
            #expect(window.by.values.sorted() == [24, 24])
        }
    }

    @Test(
        "A pause one instance records holds back a call already waiting for its slot at another (it listens)",
        arguments: Stack.allCases,
        Reservations.all
    )
    func pauseReachesWaitingCalls(stack: Stack, reservation: Reservations) async throws {
        let fixture = try FleetFixture(stack)
        // One call every 5.05 s: the second call's slot is 5 s away when a pause of 8 s begins.
        let limit = RateLimit(1, per: .seconds(5), margin: reservation.margin)
        try await TestDatabase.with { database in
            let (first, second) = (
                try await database.rateLimits(reservation: reservation.value),
                try await database.rateLimits(reservation: reservation.value)
            )
            let listening = Task { try await second.run() }
            defer { listening.cancel() }
            let reserved = AsyncStream<Void>.makeStream()
            let signalling = SignallingStorage(inner: second) { reserved.continuation.yield() }
            let client = fixture.client(limitedBy: RateLimiter(limit, key: fixture.key, storage: signalling))
            let endpoint = fixture.limited(limit: 100, period: .seconds(1), instance: "second")
            _ = try await client.response(for: endpoint)
            var signals = reserved.stream.makeAsyncIterator()
            await signals.next()

            let waiting = Task { try await client.response(for: endpoint) }
            await signals.next()
            // The other instance is told to wait 8 s (as its RateLimiter is by a 429 with Retry-After: 8).
            let paused = ContinuousClock.now
            try await first.pause(fixture.key, for: .seconds(8))
            _ = try await waiting.value

            let elapsed = paused.duration(to: .now)
            #expect(elapsed >= .milliseconds(7_900), "the waiting call was sent \(elapsed) after the pause of 8 s")
            #expect(try await fixture.window(.seconds(1)).count == 2)
        }
    }

    @Test("Failing closed: with PostgreSQL out of reach a call waits, then fails as rate limited, and nothing is sent")
    func failClosed() async throws {
        let fixture = try FleetFixture(.urlSession)
        try await withUnreachableDatabase { postgres in
            let limits = try unreachableLimits(postgres, .failClosed(waitingUpTo: .milliseconds(500)))
            let client = fixture.client(
                limitedBy: RateLimiter(RateLimit(10, per: .seconds(1)), key: "k", storage: limits)
            )

            let error = try await #require(throws: EndpointError.self) {
                try await client.response(for: fixture.limited(limit: 10, period: .seconds(1), instance: "a"))
            }
            #expect(error.kind == .rateLimited)
            #expect(error.message.contains("could not be counted: PostgreSQL could not be reached for"))
            #expect(error.message.contains("calls fail closed"))
            #expect(error.mayHaveBeenSent == false)
            #expect(try await fixture.window(.seconds(1)).count == 0)
        }
    }

    @Test("A call cancelled while it fails closed ends at once as cancelled")
    func cancelledWhileFailingClosed() async throws {
        try await withUnreachableDatabase { postgres in
            let limits = try unreachableLimits(postgres, .failClosed(waitingUpTo: .seconds(600)))
            let call = Task {
                try await limits.reserve("k", limit: RateLimit(1, per: .seconds(1)), maxWait: .seconds(1))
            }
            // Let it meet the unreachable database at least once.
            try await Task.sleep(for: .milliseconds(300))
            call.cancel()
            let error = try await #require(throws: EndpointError.self) { try await call.value }
            #expect(error.kind == .cancelled)
        }
    }

    @Test(
        "A local share with PostgreSQL out of reach: refused until maxWait and a window have passed, then the share, never more",
        arguments: Stack.allCases,
        Reservations.all
    )
    func localShare(stack: Stack, reservation: Reservations) async throws {
        let fixture = try FleetFixture(stack)
        try await withUnreachableDatabase { postgres in
            let recording = RecordingLogHandler()
            let limits = try PostgresRateLimits(
                postgres: postgres,
                configuration: PostgresRateLimitConfiguration(
                    timeout: .milliseconds(200),
                    whenUnreachable: .localShare(instances: 2),
                    retryInterval: .seconds(60),
                    reservation: reservation.value
                ),
                logger: recording.logger
            )
            // 8 per second among 2 instances: this one keeps 4. Slots PostgreSQL granted may lie up to maxWait ahead.
            // A 150 ms margin: the fault server, serving every suite at once, counts some arrivals 50 ms late.
            let limit = RateLimit(8, per: .seconds(1), margin: .milliseconds(150))
            let limiter = RateLimiter(limit, key: "k", storage: limits, maxWait: .seconds(0.5))
            let client = fixture.client(limitedBy: limiter)
            let started = ContinuousClock.now
            let refusals = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        try await sendHonouringRefusals(
                            client,
                            fixture.limited(limit: 4, period: .seconds(1), instance: "a")
                        )
                    }
                }
                return try await group.reduce(0, +)
            }
            let elapsed = started.duration(to: .now)
            let window = try await fixture.window(.seconds(1))
            #expect(window.count == 8)
            #expect(window.max <= 4)
            #expect(window.over == 0)
            #expect(refusals > 0, "calls before the share began were refused, and nothing was sent for them")
            // The failure (200 ms), maxWait (0.5 s) and a window (1.15 s) before the first; then 4 per 1.15 s: the
            // eighth 2.01 s after the first, at about 3.9 s. (A window's wait alone would put it at about 3.4 s.)
            #expect(elapsed >= .seconds(3.5), "elapsed \(elapsed)")
            // One warning for the spell, not one per call that found PostgreSQL gone.
            let warnings = recording.warnings.withLock { $0 }
            #expect(warnings.filter { $0.contains("keeping a local share") }.count == 1, "\(warnings)")
        }
    }

    @Test("Keys and configurations that cannot be used are refused with what is wrong")
    func refusals() async throws {
        try await TestDatabase.with { database in
            let limits = try await database.rateLimits()
            for key in ["", "a\nb", String(repeating: "k", count: 1_001)] {
                let error = try await #require(throws: EndpointError.self) {
                    try await limits.reserve(key, limit: RateLimit(1, per: .seconds(1)), maxWait: .zero)
                }
                #expect(error.kind == .invalidRequest)
            }
            for configuration in [
                PostgresRateLimitConfiguration(schema: "Bad-Name"),
                PostgresRateLimitConfiguration(whenUnreachable: .localShare(instances: 0)),
                PostgresRateLimitConfiguration(timeout: .zero),
                PostgresRateLimitConfiguration(reservation: .leased(maximumSlots: 0)),
            ] {
                let error = try #require(throws: EndpointError.self) {
                    try PostgresRateLimits(postgres: database.client, configuration: configuration)
                }
                #expect(error.kind == .invalidRequest)
            }
            try await database.execute("UPDATE \(database.schema).ratelimit_version SET version = 99")
            let error = try await #require(throws: EndpointError.self) { try await limits.prepare() }
            #expect(error.kind == .storageFailed)
            #expect(error.message.contains("version 99, newer than this EndpointKit's 2; nothing was changed"))
        }
    }
}
#endif
