#if Postgres && AsyncHTTPClient
import EndpointKit
import EndpointKitAsyncHTTPClient
import EndpointKitPostgres
import Foundation
import PostgresNIO

/// The fault server's `/cached/KEY` body: its version, and the Authorization header it was asked with.
private struct Versioned: Decodable, Sendable {
    var version: Int
    var authorization: String?
}

/// How one pass of an instance went: where each response came from, and what was wrong.
private struct PassCounts: Sendable {
    var network = 0
    var cache = 0
    var revalidated = 0
    /// Responses whose body names another token than the call's: served across partitions.
    var wrong = 0
    var failed = 0
    var microseconds: [Int] = []
}

/// Fetches `resources` resources of the fault server (`cached/KEY-N`, `max-age=0` for even N, `max-age=60` for odd)
/// with each of `tokens` tokens (`t0`, `t1`, …), `passes` times, each pass in an order of its own drawn from `seed`,
/// `concurrency` calls at once, through an HTTP cache in PostgreSQL (`schema`); prints one line per pass:
/// `cache INSTANCE pass=P network=N cache=C revalidated=R wrong=W failed=F p50=US p99=US` (a call's time).
func cacheFleet(
    schema: String,
    server: String,
    key: String,
    instance: String,
    resources: Int,
    tokens: Int,
    passes: Int,
    concurrency: Int,
    seed: UInt64
) async throws {
    let postgres = PostgresClient(configuration: try postgresConfiguration(application: "fleet-cache"))
    let transport = AsyncHTTPClientTransport()
    try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { await postgres.run() }
        var storage: PostgresCacheStorage?
        try await retrying {
            storage = try await PostgresCacheStorage.prepared(
                postgres: postgres,
                configuration: PostgresCacheConfiguration(schema: schema, timeout: .seconds(2)),
                logger: logger
            )
        }
        guard let storage else { throw FleetError("the cache storage was not prepared") }
        let listening = Task { try? await storage.run() }
        guard let base = URL(string: server) else { throw FleetError("not a URL: \(server)") }
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: base),
            transport: transport,
            cache: HTTPCache(storage: storage)
        )
        var generator = SplitMix(seed: seed)
        for pass in 1...max(1, passes) {
            var calls = (0..<resources).flatMap { resource in (0..<tokens).map { (resource, $0) } }
            calls.shuffle(using: &generator)
            let counts = await fetch(calls, key: key, client: client, concurrency: concurrency)
            report(instance: instance, pass: pass, counts)
        }
        listening.cancel()
        await listening.value
        tasks.cancelAll()
    }
    try await transport.shutdown()
}

/// Makes `calls` (resource, token), `concurrency` at once, counting where each response came from.
private func fetch(_ calls: [(Int, Int)], key: String, client: EndpointClient, concurrency: Int) async -> PassCounts {
    let counts = Locked(PassCounts())
    let next = Locked(0)
    await withTaskGroup(of: Void.self) { callers in
        for _ in 0..<max(1, concurrency) {
            callers.addTask {
                while let (resource, token) = next.withLock({ index -> (Int, Int)? in
                    guard index < calls.count else { return nil }
                    defer { index += 1 }
                    return calls[index]
                }) {
                    await fetch(resource, token: token, key: key, client: client, into: counts)
                }
            }
        }
    }
    return counts.withLock { $0 }
}

/// One call, counted.
private func fetch(_ resource: Int, token: Int, key: String, client: EndpointClient, into counts: Locked<PassCounts>)
    async
{
    let endpoint = Endpoint<EndpointKinds.Private, Versioned>(
        path: "cached/\(key)-\(resource)",
        queryItems: [URLQueryItem(name: "cc", value: resource % 2 == 0 ? "max-age=0" : "max-age=60")]
    )
    let started = ContinuousClock.now
    do {
        let response = try await client.exchange(for: endpoint, using: AccessToken("t\(token)"))
        let micros = Int(started.duration(to: .now).wholeMicroseconds)
        counts.withLock { counts in
            counts.microseconds.append(micros)
            switch response.source {
            case .network: counts.network += 1
            case .cache: counts.cache += 1
            case .revalidated: counts.revalidated += 1
            }
            if response.value.authorization != "Bearer t\(token)" { counts.wrong += 1 }
        }
    } catch {
        counts.withLock { $0.failed += 1 }
        FileHandle.standardError.write(Data("fleet cache: \(error)\n".utf8))
    }
}

/// The seeded generator shuffles each pass's order.
extension SplitMix: RandomNumberGenerator {}

/// Prints one pass's line, at once.
private func report(instance: String, pass: Int, _ counts: PassCounts) {
    let times = counts.microseconds.sorted()
    let line =
        "cache \(instance) pass=\(pass) network=\(counts.network) cache=\(counts.cache) "
        + "revalidated=\(counts.revalidated) wrong=\(counts.wrong) failed=\(counts.failed) "
        + "p50=\(times.percentile(0.5)) p99=\(times.percentile(0.99))\n"
    FileHandle.standardOutput.write(Data(line.utf8))
}
#endif
