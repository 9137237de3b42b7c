#if Postgres && AsyncHTTPClient
import EndpointKit
import EndpointKitAsyncHTTPClient
import EndpointKitPostgres
import Foundation
import PostgresNIO

/// Times each reservation of `inner`: the limiter's own cost per call (its trip to PostgreSQL), apart from the wait
/// for the slot that the limit itself asks.
final class TimedStorage: RateLimitStorage {
    let inner: any RateLimitStorage
    /// Each reservation's time in microseconds, and whether it began a second or more after the first.
    private let times = Locked([(micros: Int, warm: Bool)]())
    private let first = Locked<ContinuousClock.Instant?>(nil)

    init(_ inner: any RateLimitStorage) { self.inner = inner }

    func reserve(_ key: String, limit: RateLimit, maxWait: Duration) async throws(EndpointError) -> RateLimitGrant {
        let started = ContinuousClock.now
        let warm = first.withLock { first in
            let origin = first ?? started
            first = origin
            return origin.duration(to: started) >= .seconds(1)
        }
        defer {
            let micros = Int(started.duration(to: .now).wholeMicroseconds)
            times.withLock { $0.append((micros, warm)) }
        }
        return try await inner.reserve(key, limit: limit, maxWait: maxWait)
    }

    func pause(_ key: String, for duration: Duration) async throws(EndpointError) {
        try await inner.pause(key, for: duration)
    }

    func pauseRemaining(_ key: String) -> Duration? { inner.pauseRemaining(key) }

    /// Every reservation's time so far, in microseconds, sorted.
    var microseconds: [Int] { times.withLock { $0 }.map(\.micros).sorted() }

    /// The times of the reservations that began a second or more after the first, sorted: the instance's calls once
    /// it has started (its first calls all wait for a trip, whatever the reservation).
    var warmMicroseconds: [Int] { times.withLock { $0 }.filter(\.warm).map(\.micros).sorted() }
}

/// Stamps each request the limiter lets through with the wall-clock time it went on (`x-released`, microseconds
/// since 1970), so that the upstream can count the fleet's windows as the limiter released the calls, beside its
/// count by arrival: the difference is the time calls took from the limiter to the upstream.
struct ReleaseStamp: Middleware {
    func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext) async throws
        -> TransportResponse
    {
        var request = request
        let micros = Int64((Date().timeIntervalSince1970 * 1_000_000).rounded())
        request.headers["x-released"] = String(micros)
        return try await next(request, context: context)
    }
}

/// Opens the connections `concurrency` calls at once use, to the upstream (through `client`, which shares the
/// limited client's transport, outside the limit) and to PostgreSQL, as in a server that has been running: a
/// request on a connection opened at start-up arrives later than the limit's margin allows on this loaded machine.
func warmUp(_ concurrency: Int, client: EndpointClient, postgres: PostgresClient) async throws {
    try await withThrowingTaskGroup(of: Void.self) { calls in
        for _ in 0..<concurrency {
            calls.addTask {
                _ = try await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "count/warm-up"))
                try await postgres.query("SELECT 1", logger: logger)
            }
        }
        try await calls.waitForAll()
    }
}

/// What `limiter` does while PostgreSQL is out of reach, from its name: `closed` or `share:N`.
func unreachablePolicy(_ name: String) throws -> PostgresRateLimitConfiguration.Unreachable {
    if name == "closed" { return .failClosed(waitingUpTo: .seconds(5)) }
    if name.hasPrefix("share:"), let instances = Int(name.dropFirst(6)), instances > 0 {
        return .localShare(instances: instances)
    }
    throw FleetError("not a policy: \(name) (closed or share:N)")
}

/// How `limiter` takes its slots, from its name: `per-call` or `leased:N`.
func reservation(_ name: String) throws -> PostgresRateLimitConfiguration.Reservation {
    if name == "per-call" { return .perCall }
    if name.hasPrefix("leased:"), let slots = Int(name.dropFirst(7)), slots > 0 { return .leased(maximumSlots: slots) }
    throw FleetError("not a reservation: \(name) (per-call or leased:N)")
}

/// Drives `concurrency` calls at once at the fault server's `/limited/KEY` for `seconds`, through a RateLimiter of
/// `limit` per `period` on PostgreSQL, then prints what it sent and the limiter's own cost per call:
/// `limiter INSTANCE sent=N limited=L failed=F reservations=R retaken=T p50=US p99=US max=US warm99=US` (`warm99`:
/// the reservations that began a second or more after the first).
func limiter(
    schema: String,
    server: String,
    key: String,
    instance: String,
    limit: Int,
    period: Duration,
    concurrency: Int,
    seconds: Int,
    policy: PostgresRateLimitConfiguration.Unreachable,
    margin: Duration,
    maxWait: Duration,
    reservation: PostgresRateLimitConfiguration.Reservation
) async throws {
    let postgres = PostgresClient(configuration: try postgresConfiguration(application: "fleet-limiter"))
    let transport = AsyncHTTPClientTransport()
    let limits = try PostgresRateLimits(
        postgres: postgres,
        configuration: PostgresRateLimitConfiguration(
            schema: schema,
            whenUnreachable: policy,
            reservation: reservation
        ),
        logger: logger
    )
    let timed = TimedStorage(limits)
    let rateLimiter = RateLimiter(
        RateLimit(limit, per: period, margin: margin),
        key: key,
        storage: timed,
        maxWait: maxWait
    )
    let client = try endpointClient(server, transport, middleware: [rateLimiter, ReleaseStamp()])
    let endpoint = limitedEndpoint(key: key, limit: limit, period: period, instance: instance)
    let counts = Locked((sent: 0, limited: 0, failed: 0))
    try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { await postgres.run() }
        // Stopped before the pool, as a ServiceGroup stops the services listed after the PostgresClient first.
        let listening = Task { try? await limits.run() }
        try await retrying { try await limits.prepare() }
        try await warmUp(concurrency, client: try endpointClient(server, transport), postgres: postgres)
        let end = ContinuousClock.now.advanced(by: .seconds(seconds))
        await withTaskGroup(of: Void.self) { callers in
            for _ in 0..<concurrency {
                callers.addTask { await call(until: end, client: client, endpoint: endpoint, counts: counts) }
            }
        }
        report(
            instance: instance,
            counts: counts.withLock { $0 },
            limiter: rateLimiter,
            times: timed.microseconds,
            warm: timed.warmMicroseconds
        )
        listening.cancel()
        await listening.value
        tasks.cancelAll()
    }
    try await transport.shutdown()
}

/// The fault server's upstream that keeps `limit` per `period` under `key`, called as `instance`.
private func limitedEndpoint(key: String, limit: Int, period: Duration, instance: String) -> Endpoint<
    EndpointKinds.Public, Data
> {
    Endpoint(
        path: "limited/\(key)",
        queryItems: [
            URLQueryItem(name: "limit", value: String(limit)),
            URLQueryItem(name: "period", value: String(period.wholeMicroseconds / 1000)),
        ],
        headers: ["x-instance": instance]
    )
}

/// Calls `endpoint` until `end`, counting how each call ended.
private func call(
    until end: ContinuousClock.Instant,
    client: EndpointClient,
    endpoint: Endpoint<EndpointKinds.Public, Data>,
    counts: Locked<(sent: Int, limited: Int, failed: Int)>
) async {
    while ContinuousClock.now < end {
        var pause: Duration?
        do {
            _ = try await client.response(for: endpoint)
            counts.withLock { $0.sent += 1 }
        } catch {
            if error.kind == .rateLimited && error.statusCode == nil {
                // Refused by the limiter, nothing sent: waited out as a caller would (at most a second).
                counts.withLock { $0.limited += 1 }
                pause = min(error.retryAfter ?? .milliseconds(20), .seconds(1))
            } else {
                counts.withLock { $0.failed += 1 }
                pause = .milliseconds(20)
            }
        }
        if let pause { try? await Task.sleep(for: pause) }
    }
}

/// Prints what an instance sent and its reservations' times, before it shuts down (flushed: the proof reads it even
/// from an instance that is slow to exit).
private func report(
    instance: String,
    counts: (sent: Int, limited: Int, failed: Int),
    limiter: RateLimiter,
    times: [Int],
    warm: [Int]
) {
    let line =
        "limiter \(instance) sent=\(counts.sent) limited=\(counts.limited) failed=\(counts.failed) "
        + "reservations=\(times.count) retaken=\(limiter.retakenSlots) "
        + "p50=\(times.percentile(0.5)) p99=\(times.percentile(0.99)) "
        + "max=\(times.last ?? 0) warm99=\(warm.percentile(0.99))\n"
    // Written at once: a print to a pipe waits in a buffer until the process exits.
    FileHandle.standardOutput.write(Data(line.utf8))
}
#endif
