#if Postgres
import EndpointKit
import Foundation
import Logging
import PostgresNIO

/// Rate limits a fleet shares in PostgreSQL: every instance that names the same schema and key counts against one
/// limit, and a wait the upstream asks of one instance holds for all.
///
///     func stripe(postgres: PostgresClient, env: ServerEnvironment) throws -> (EndpointClient, PostgresRateLimits) {
///         let limits = try PostgresRateLimits(postgres: postgres)
///         let limiter = RateLimiter(RateLimit(100, per: .seconds(1)), key: "stripe", storage: limits)
///         // Run `limits` in the service group beside the PostgresClient: its run() prepares the table and listens.
///         return (EndpointClient(environment: env, middleware: [Retry(), limiter]), limits)
///     }
///
/// Each key is one row keeping GCRA's state (see ``EndpointKit/RateLimit``); a statement locks the row, reads the
/// database's clock and moves the state on, so every instance's slots come from one clock and one order. By default
/// an instance leases its slots in blocks and hands them to its calls itself, so that most calls take no trip; it
/// may instead take each call's slot in a trip of its own (``PostgresRateLimitConfiguration/reservation``).
/// ``run()`` listens for the pauses other instances record, so that calls already waiting for their slot here hold
/// back too; without it, a pause still holds for every slot taken from PostgreSQL after it, but slots this instance
/// leased before it are still handed out.
///
/// What happens while PostgreSQL cannot be reached is ``PostgresRateLimitConfiguration/whenUnreachable``: by
/// default calls wait up to 5 s for it, then fail with ``EndpointKit/EndpointError/Kind/rateLimited``.
///
/// The key is stored in the table and shown in errors: name an account or a token by an identifier of your own,
/// never by the secret itself.
public final class PostgresRateLimits: RateLimitStorage {
    /// The pool the limits' statements run on.
    public let postgres: PostgresClient
    /// Where the limits live and what happens while PostgreSQL cannot be reached.
    public let configuration: PostgresRateLimitConfiguration
    let logger: Logger
    let start = ContinuousClock.now
    private let reach: Locked<RateLimitReach>
    /// The slots this instance leased, and its trips (see ``PostgresRateLimitConfiguration/reservation``).
    let leases: Locked<LeaseBook>
    /// Owns the trips: one goes on when the call that started it leaves, and stops when the storage goes.
    let tripOwner = TaskOwner()
    /// How far the database's clock is ahead of this process's, as the answers so far tell.
    let offset = Locked(ClockOffset())
    /// The pauses this instance knows of, by key: its own and those it heard of.
    private let pauses = Locked([String: ContinuousClock.Instant]())

    /// Creates the storage; call ``prepare()`` or ``run()`` before the first reservation.
    ///
    /// - Throws: ``EndpointKit/EndpointError/Kind/invalidRequest`` for a configuration that cannot be used.
    public init(
        postgres: PostgresClient,
        configuration: PostgresRateLimitConfiguration = PostgresRateLimitConfiguration(),
        logger: Logger = Logger(label: "endpointkit.ratelimits")
    ) throws(EndpointError) {
        if let problem = configuration.problem { throw EndpointError(.invalidRequest, problem) }
        self.postgres = postgres
        self.configuration = configuration
        self.logger = logger
        reach = Locked(RateLimitReach(retryInterval: configuration.retryInterval.wholeMicroseconds))
        let slots = if case .leased(let slots) = configuration.reservation { slots } else { 1 }
        leases = Locked(LeaseBook(leases: RateLimitLeases(maximumSlots: slots)))
    }

    /// Creates the limits' table and functions, or migrates them; instances starting together do it once. It may
    /// take ``prepareTimeout`` or the configuration's timeout, whichever is longer: a migration is several
    /// statements, and may wait for another instance's.
    ///
    /// - Throws: ``EndpointKit/EndpointError/Kind/storageFailed`` when PostgreSQL cannot be reached in time, or
    ///   holds a newer version of the table.
    public func prepare() async throws(EndpointError) {
        let schema = configuration.schema
        let limit = max(configuration.timeout, Self.prepareTimeout)
        try await shared("the rate limit schema \(schema) could not be prepared", within: limit) {
            [postgres, logger] in
            try await PostgresRateLimitSchema.tables.prepare(postgres, schema: schema, logger: logger)
        }
    }

    /// The least time ``prepare()`` is given.
    public static let prepareTimeout = Duration.seconds(30)

    /// Reserves the next slot of `limit` under `key` in PostgreSQL, or as
    /// ``PostgresRateLimitConfiguration/whenUnreachable`` says while it cannot be reached.
    public func reserve(_ key: String, limit: RateLimit, maxWait: Duration) async throws(EndpointError)
        -> RateLimitGrant
    {
        if let problem = Self.keyProblem(key) { throw EndpointError(.invalidRequest, problem, mayHaveBeenSent: false) }
        switch configuration.whenUnreachable {
        case .failClosed(let patience): return try await reserveFailingClosed(key, limit, maxWait, patience: patience)
        case .localShare(let instances): return try await reserveSharing(key, limit, maxWait, instances: instances)
        }
    }

    /// Makes every caller of `key` wait `duration`, here at once and in every instance through PostgreSQL.
    public func pause(_ key: String, for duration: Duration) async throws(EndpointError) {
        heard(key, pausedFor: duration)
        _ = reach.withLock { $0.apply(.pause(key: key, duration: duration.wholeMicroseconds, now: now())) }
        try await pauseShared(key, for: duration)
    }

    /// How much longer `key` is paused, as far as this instance has heard.
    public func pauseRemaining(_ key: String) -> Duration? {
        guard let until = pauses.withLock({ $0[key] }) else { return nil }
        let left = ContinuousClock.now.duration(to: until)
        return left > .zero ? left : nil
    }

    // MARK: Internals

    /// The channel pauses are announced on.
    var channel: String { "\(configuration.schema)_ratelimit" }

    /// Microseconds of the process's clock since the storage was made, from 1.
    func now() -> RateLimitState.Time { Self.now(since: start) }

    /// Microseconds of the process's clock since `start`, from 1.
    static func now(since start: ContinuousClock.Instant) -> RateLimitState.Time {
        start.duration(to: .now).wholeMicroseconds + 1
    }

    /// Notes that `key` is paused for `duration` from now.
    func heard(_ key: String, pausedFor duration: Duration) {
        let until = ContinuousClock.now.advanced(by: min(duration, .seconds(1_000_000_000)))
        pauses.withLock { pauses in pauses[key] = max(pauses[key] ?? until, until) }
    }

    /// Reserves in PostgreSQL, trying again for up to `patience` while it cannot be reached, then fails closed.
    private func reserveFailingClosed(_ key: String, _ limit: RateLimit, _ maxWait: Duration, patience: Duration)
        async throws(EndpointError) -> RateLimitGrant
    {
        let started = ContinuousClock.now
        while true {
            do {
                return try await reserveInPostgres(key, limit, maxWait)
            } catch  where error.kind == .storageFailed {
                let waited = started.duration(to: .now)
                guard waited < patience else { throw Self.closed(key, after: waited, error) }
                do { try await Task.sleep(for: min(patience - waited, .milliseconds(100))) } catch {
                    throw EndpointError(
                        .cancelled,
                        "the call was cancelled while the rate limit \(key) was out of reach"
                    )
                }
            }
        }
    }

    /// Reserves in PostgreSQL, or in a local share while it cannot be reached (see ``RateLimitReach``).
    private func reserveSharing(_ key: String, _ limit: RateLimit, _ maxWait: Duration, instances: Int)
        async throws(EndpointError) -> RateLimitGrant
    {
        while true {
            switch reach.withLock({ $0.apply(.route(now: now())) }) {
            case .useShared:
                let grant: RateLimitGrant
                do { grant = try await reserveInPostgres(key, limit, maxWait) } catch
                    where error.kind == .storageFailed
                {
                    // Said once a spell: the calls that find PostgreSQL gone with it need not say it again.
                    if reach.withLock({ $0.apply(.failed(now: now())) }) == .beganLocal {
                        logger.warning(
                            "rate limit \(key): PostgreSQL cannot be reached, keeping a local share: \(error.message)"
                        )
                    }
                    continue
                }
                guard case .pauseShared(let pauses) = reach.withLock({ $0.apply(.answered(now: now())) }) else {
                    return grant
                }
                logger.notice(
                    "rate limits: PostgreSQL is back; pausing \(pauses.count) limit(s) a window past their local slots"
                )
                for (kept, pause) in pauses { try? await pauseShared(kept, for: .microseconds(pause)) }
            default:
                let decision = reach.withLock {
                    $0.apply(
                        .reserveLocally(
                            key: key,
                            share: limit.share(among: instances),
                            maxWait: maxWait.wholeMicroseconds,
                            now: now()
                        )
                    )
                }
                switch decision {
                case .decided(let decision): return RateLimitGrant(decision)
                default: continue
                }
            }
        }
    }

    /// A slot from PostgreSQL, reserved or leased as the configuration says.
    private func reserveInPostgres(_ key: String, _ limit: RateLimit, _ maxWait: Duration) async throws(EndpointError)
        -> RateLimitGrant
    {
        switch configuration.reservation {
        case .perCall: return try await reserveShared(key, limit, maxWait)
        case .leased: return try await reserveLeased(key, limit, maxWait)
        }
    }

    /// One reservation in PostgreSQL. The database gives the slot on its own clock; ``offset`` places it on this
    /// process's: at the latest moment it can be here, so the call never goes early, and the range's width is how
    /// much earlier it may be (with one answer, the time since the statement read the clock: not the wait for a
    /// pooled connection nor for the row's lock; answers before it narrow that).
    private func reserveShared(_ key: String, _ limit: RateLimit, _ maxWait: Duration) async throws(EndpointError)
        -> RateLimitGrant
    {
        let query: PostgresQuery = """
            SELECT r.wait, r.granted, r.ran, \(unescaped: Self.statementStart) \
            FROM \(unescaped: configuration.schema).ratelimit_reserve(\(key), \(limit.intervalMicroseconds), \
            \(limit.toleranceMicroseconds), \(maxWait.wholeMicroseconds)) r
            """
        let start = start
        let (wait, granted, clock) = try await shared("the rate limit \(key) could not be counted") {
            [postgres, logger] in
            try await postgres.withConnection { connection in
                let sent = Self.now(since: start)
                let rows = try await connection.query(query, logger: logger).decode((Int64, Bool, Int64, Int64).self)
                for try await (wait, granted, ran, statement) in rows {
                    return (wait, granted, ClockReading(statement, ran: ran, sent: sent, at: Self.now(since: start)))
                }
                throw EndpointError(.storageFailed, "ratelimit_reserve answered no row")
            }
        }
        guard granted else { return .refused(nextSlotIn: .microseconds(wait)) }
        let range = offset.withLock { $0.observe(read: clock.read, sent: clock.sent, answered: clock.answered) }
        let (slot, now) = (range.latest(clock.read + wait), now())
        return .send(after: .microseconds(max(0, slot - now)), early: .microseconds(range.width + max(0, now - slot)))
    }

    /// The SQL of the time the statement began on the database's clock, in microseconds: with what a function of the
    /// limits says it ran before it read the clock, the time it read.
    static let statementStart = "(extract(epoch FROM statement_timestamp()) * 1000000)::bigint"

    /// Records a pause of `key` in PostgreSQL, which tells every listening instance.
    private func pauseShared(_ key: String, for duration: Duration) async throws(EndpointError) {
        let query: PostgresQuery = """
            SELECT \(unescaped: configuration.schema).ratelimit_pause(\(key), \(duration.wholeMicroseconds))
            """
        try await shared("the pause of rate limit \(key) could not be shared") { [postgres, logger] in
            try await postgres.query(query, logger: logger)
        }
    }

    /// Runs `body` under `limit`, or the configuration's timeout; every failure is a
    /// ``EndpointKit/EndpointError/Kind/storageFailed`` error that says what could not be done, and cancellation is
    /// ``EndpointKit/EndpointError/Kind/cancelled``.
    @discardableResult
    func shared<T: Sendable>(
        _ what: String,
        within limit: Duration? = nil,
        _ body: @escaping @Sendable () async throws -> T
    ) async throws(EndpointError) -> T {
        try await Self.shared(what, within: limit ?? configuration.timeout, body)
    }

    /// ``shared(_:within:_:)``, for work that must not hold the storage.
    @discardableResult
    static func shared<T: Sendable>(
        _ what: String,
        within limit: Duration,
        _ body: @escaping @Sendable () async throws -> T
    ) async throws(EndpointError) -> T {
        do {
            return try await withDeadline(limit, doing: what, kind: .storageFailed, body)
        } catch is CancellationError {
            throw EndpointError(.cancelled, "\(what): the call was cancelled")
        } catch let error as EndpointError where error.kind == .storageFailed {
            throw error
        } catch {
            throw PostgresOutboxFailure.error(what, error, kind: .storageFailed)
        }
    }

    /// The error of a call that found PostgreSQL out of reach for `waited`.
    private static func closed(_ key: String, after waited: Duration, _ error: EndpointError) -> EndpointError {
        EndpointError(
            .rateLimited,
            "the rate limit \(key) could not be counted: PostgreSQL could not be reached for \(waited.readable) "
                + "(\(error.message)); calls fail closed (PostgresRateLimitConfiguration.whenUnreachable) and "
                + "nothing was sent",
            underlyingError: error,
            mayHaveBeenSent: false
        )
    }

    /// Why `key` cannot name a limit, if it cannot.
    static func keyProblem(_ key: String) -> String? {
        if key.isEmpty { return "a rate limit's key is empty" }
        if key.utf8.count > 1_000 { return "a rate limit's key is longer than 1,000 bytes" }
        if key.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "a rate limit's key holds a control character"
        }
        return nil
    }
}
#endif
