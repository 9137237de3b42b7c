#if Postgres && AsyncHTTPClient
import EndpointKit
import EndpointKitAsyncHTTPClient
import EndpointKitPostgres
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import UnixSignals

// The processes of the PostgreSQL outbox's fleet proof (scripts/outbox-fleet.py) and of the demo's fleet step:
//
//   EndpointKitPostgresFleet sender SCHEMA SERVER INSTANCE [LEASE_MS]
//       sends the outbox in SCHEMA through AsyncHTTPClient to SERVER until SIGTERM (a graceful stop) or SIGKILL
//   EndpointKitPostgresFleet enqueue SCHEMA SERVER KEY WRITES GROUPS SEED ROLLBACK_PERCENT [QUERY]
//       queues WRITES writes over GROUPS groups (POST idem/KEY/GROUP, body o<N>.<TRY>, QUERY appended), each in a
//       transaction that also inserts its body into SCHEMA.orders; a seeded ROLLBACK_PERCENT of them roll back.
//       A transaction the database fails is tried again as a new write. Prints `enqueued COMMITTED ROLLED_BACK`.
//   EndpointKitPostgresFleet raw SERVER KEY WRITES GROUPS
//       the raw loop the outbox is measured against: the same POSTs, one group at a time each, all groups at once;
//       prints `raw WRITES MILLISECONDS`
//   EndpointKitPostgresFleet directory SERVER KEY WRITES GROUPS
//       the same writes queued in a directory outbox, then timed while it drains; prints `directory WRITES MS`
//   EndpointKitPostgresFleet limiter SCHEMA SERVER KEY INSTANCE LIMIT PERIOD_MS CONCURRENCY SECONDS POLICY [MARGIN_MS]
//       [MAX_WAIT_MS] [RESERVATION]
//       CONCURRENCY calls at once at SERVER's limited/KEY for SECONDS, through a RateLimiter of LIMIT per PERIOD_MS
//       kept in PostgreSQL (SCHEMA, key KEY), failing closed (POLICY `closed`) or on a local share (`share:N`)
//       while PostgreSQL is out of reach, slots reserved per call (RESERVATION `per-call`) or leased in blocks
//       (`leased:N`, the default leased:16); prints what it sent and the reservations' times
//       (scripts/ratelimit-fleet.py)
//   EndpointKitPostgresFleet cache SCHEMA SERVER KEY INSTANCE RESOURCES TOKENS PASSES CONCURRENCY SEED
//       fetches RESOURCES cacheable resources of SERVER with each of TOKENS tokens, PASSES times in seeded orders,
//       CONCURRENCY at once, through an HTTP cache in PostgreSQL (SCHEMA); prints each pass's sources
//       (scripts/cache-fleet.py)
//
// PostgreSQL is read from ENDPOINTKIT_POSTGRES_URL.

let logger: Logger = {
    var logger = Logger(label: "endpointkit.fleet")
    logger.logLevel = .warning
    return logger
}()

func postgresConfiguration(application: String) throws -> PostgresClient.Configuration {
    guard let value = ProcessInfo.processInfo.environment["ENDPOINTKIT_POSTGRES_URL"],
        var configuration = PostgresClient.Configuration(loopbackURL: value)
    else { throw FleetError("ENDPOINTKIT_POSTGRES_URL is not set, or not a postgres:// URL") }
    configuration.options.additionalStartupParameters = [("application_name", application)]
    configuration.options.connectTimeout = .seconds(2)
    return configuration
}

struct FleetError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

func endpointClient(_ server: String, _ transport: AsyncHTTPClientTransport, middleware: [any Middleware] = [])
    throws -> EndpointClient
{
    guard let base = URL(string: server) else { throw FleetError("not a URL: \(server)") }
    var defaults = RequestDefaults()
    defaults.timeout = .seconds(10)
    return EndpointClient(
        environment: ServerEnvironment(baseURL: base),
        transport: transport,
        defaults: defaults,
        middleware: middleware
    )
}

/// Sends until SIGTERM.
func sender(schema: String, server: String, instance: String, lease: Duration) async throws {
    let postgres = PostgresClient(configuration: try postgresConfiguration(application: "fleet-sender"))
    let transport = AsyncHTTPClientTransport()
    var policy = OutboxPolicy()
    policy.initialBackoff = .milliseconds(50)
    policy.maximumBackoff = .seconds(1)
    policy.maximumAge = .seconds(3600)
    let outbox = try PostgresOutbox<EndpointKinds.Public>(
        postgres: postgres,
        client: try endpointClient(server, transport),
        policy: policy,
        configuration: PostgresOutboxConfiguration(
            schema: schema,
            instance: instance,
            leaseDuration: lease,
            pollInterval: .milliseconds(500),
            maximumGroups: 64,
            groupsPerClaim: 4
        ),
        logger: logger
    )
    let group = ServiceGroup(services: [postgres, outbox], gracefulShutdownSignals: [.sigterm], logger: logger)
    try await group.run()
    try await transport.shutdown()
}

/// Queues writes, each in a transaction beside a row of the caller's own.
func enqueue(
    schema: String,
    server: String,
    key: String,
    writes: Int,
    groups: Int,
    seed: UInt64,
    rollback: UInt64,
    query: String
)
    async throws
{
    var background = Logger(label: "fleet.pool")
    background.logLevel = ProcessInfo.processInfo.environment["FLEET_POOL_TRACE"] == nil ? .warning : .trace
    let postgres = PostgresClient(
        configuration: try postgresConfiguration(application: "fleet-enqueuer"),
        backgroundLogger: background
    )
    let transport = AsyncHTTPClientTransport()
    let outbox = try PostgresOutbox<EndpointKinds.Public>(
        postgres: postgres,
        client: try endpointClient(server, transport),
        configuration: PostgresOutboxConfiguration(schema: schema, timeout: .seconds(5)),
        logger: logger
    )
    try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { await postgres.run() }
        try await retrying { try await outbox.prepare() }
        try await retrying {
            try await postgres.query(
                PostgresQuery(
                    unsafeSQL: "CREATE TABLE IF NOT EXISTS \(schema).orders (body text PRIMARY KEY, write_id text)"
                ),
                logger: logger
            )
        }
        var random = SplitMix(seed: seed)
        var (committed, rolledBack) = (0, 0)
        for index in 0..<writes {
            let group = "g\(index % groups)"
            let rollsBack = random.next() % 100 < rollback
            var attempt = 0
            while true {
                attempt += 1
                let body = "o\(index).\(attempt)"
                var endpoint = Endpoint<EndpointKinds.Public, Data>(
                    method: .post,
                    path: "idem/\(key)/\(group)",
                    body: DataBody(Data(body.utf8), contentType: "text/plain")
                )
                if !query.isEmpty, let items = URLComponents(string: "?" + query)?.queryItems {
                    endpoint.queryItems = items
                }
                let write = endpoint
                do {
                    try await withDeadline(.seconds(5), doing: "an enqueue") {
                        try await withCarefulTransaction(postgres, logger: logger) { connection in
                            let queued = try await outbox.enqueue(write, group: group, on: connection)
                            try await connection.query(
                                "INSERT INTO \(unescaped: schema).orders (body, write_id) VALUES (\(body), \(queued.id))",
                                logger: logger
                            )
                            if rollsBack { throw RolledBack() }
                        }
                    }
                    committed += 1
                    break
                } catch is RolledBack {
                    rolledBack += 1
                    break
                } catch {
                    // The database went away (a restart, a terminated connection): a new write, in a new transaction.
                    FileHandle.standardError.write(Data("fleet: an enqueue failed, tried again: \(error)\n".utf8))
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
        }
        print("enqueued \(committed) \(rolledBack)")
        tasks.cancelAll()
    }
    try await transport.shutdown()
}

struct RolledBack: Error {}

func retrying(_ body: () async throws -> Void) async throws {
    for attempt in 1...100 {
        do { return try await body() } catch {
            if attempt == 100 { throw error }
            try await Task.sleep(for: .milliseconds(200))
        }
    }
}

/// The same POSTs with no outbox: each group's writes one after another, every group at once.
func raw(server: String, key: String, writes: Int, groups: Int) async throws {
    let transport = AsyncHTTPClientTransport()
    let client = try endpointClient(server, transport)
    let started = ContinuousClock.now
    try await withThrowingTaskGroup(of: Void.self) { tasks in
        for group in 0..<groups {
            tasks.addTask {
                for index in stride(from: group, to: writes, by: groups) {
                    var endpoint = Endpoint<EndpointKinds.Public, Data>(
                        method: .post,
                        path: "idem/\(key)/g\(group)",
                        body: DataBody(Data("o\(index).1".utf8), contentType: "text/plain")
                    )
                    endpoint.headers[.idempotencyKey] = UUID().uuidString
                    _ = try await client.response(for: endpoint)
                }
            }
        }
        try await tasks.waitForAll()
    }
    let elapsed = ContinuousClock.now - started
    print("raw \(writes) \(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)")
    try await transport.shutdown()
}

/// The same writes through a directory outbox in this process: queued first, then timed while they drain.
func directory(server: String, key: String, writes: Int, groups: Int) async throws {
    let transport = AsyncHTTPClientTransport()
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let outbox = try Outbox<EndpointKinds.Public>(
        directory: folder,
        client: try endpointClient(server, transport),
        startsSending: false
    )
    for index in 0..<writes {
        try outbox.enqueue(
            Endpoint<EndpointKinds.Public, Data>(
                method: .post,
                path: "idem/\(key)/g\(index % groups)",
                body: DataBody(Data("o\(index).1".utf8), contentType: "text/plain")
            ),
            group: "g\(index % groups)"
        )
    }
    let started = ContinuousClock.now
    outbox.resume()
    await outbox.waitUntilIdle()
    let elapsed = ContinuousClock.now - started
    await outbox.close()
    print(
        "directory \(writes) \(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)"
    )
    try await transport.shutdown()
}

/// A small seeded generator (SplitMix64): the same seed rolls back the same transactions.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

let arguments = CommandLine.arguments.dropFirst().map { $0 }
do {
    switch arguments.first {
    case "sender" where arguments.count >= 4:
        let lease = arguments.count > 4 ? Int(arguments[4]) ?? 2000 : 2000
        try await sender(
            schema: arguments[1],
            server: arguments[2],
            instance: arguments[3],
            lease: .milliseconds(lease)
        )
    case "enqueue" where arguments.count >= 8:
        try await enqueue(
            schema: arguments[1],
            server: arguments[2],
            key: arguments[3],
            writes: Int(arguments[4]) ?? 0,
            groups: Int(arguments[5]) ?? 1,
            seed: UInt64(arguments[6]) ?? 1,
            rollback: UInt64(arguments[7]) ?? 0,
            query: arguments.count > 8 ? arguments[8] : ""
        )
    case "raw" where arguments.count >= 5:
        try await raw(
            server: arguments[1],
            key: arguments[2],
            writes: Int(arguments[3]) ?? 0,
            groups: Int(arguments[4]) ?? 1
        )
    case "directory" where arguments.count >= 5:
        try await directory(
            server: arguments[1],
            key: arguments[2],
            writes: Int(arguments[3]) ?? 0,
            groups: Int(arguments[4]) ?? 1
        )
    case "limiter" where arguments.count >= 10:
        try await limiter(
            schema: arguments[1],
            server: arguments[2],
            key: arguments[3],
            instance: arguments[4],
            limit: Int(arguments[5]) ?? 1,
            period: .milliseconds(Int(arguments[6]) ?? 1000),
            concurrency: Int(arguments[7]) ?? 1,
            seconds: Int(arguments[8]) ?? 1,
            policy: try unreachablePolicy(arguments[9]),
            margin: .milliseconds(arguments.count > 10 ? Int(arguments[10]) ?? 50 : 50),
            maxWait: .milliseconds(arguments.count > 11 ? Int(arguments[11]) ?? 60_000 : 60_000),
            reservation: try reservation(arguments.count > 12 ? arguments[12] : "leased:16")
        )
    case "cache" where arguments.count >= 10:
        try await cacheFleet(
            schema: arguments[1],
            server: arguments[2],
            key: arguments[3],
            instance: arguments[4],
            resources: Int(arguments[5]) ?? 1,
            tokens: Int(arguments[6]) ?? 1,
            passes: Int(arguments[7]) ?? 1,
            concurrency: Int(arguments[8]) ?? 1,
            seed: UInt64(arguments[9]) ?? 1
        )
    default:
        print("usage: EndpointKitPostgresFleet sender|enqueue|raw|directory|limiter|cache ... (see its source)")
        exit(64)
    }
} catch {
    print("fleet: \(error)")
    exit(1)
}
#else
print("EndpointKitPostgresFleet needs the Postgres and AsyncHTTPClient traits")
#endif
