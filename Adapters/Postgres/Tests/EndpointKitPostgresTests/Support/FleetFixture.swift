#if Postgres && AsyncHTTPClient
import EndpointKit
import EndpointKitAsyncHTTPClient
import EndpointKitPostgres
import Foundation
import Testing

/// The transport a test of behaviour runs over: each runs over both.
enum Stack: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case urlSession = "URLSession"
    case asyncHTTPClient = "AsyncHTTPClient"

    var testDescription: String { rawValue }

    /// A transport of this stack; an AsyncHTTPClient one shuts down when released.
    func transport() -> any Transport {
        switch self {
        case .urlSession: URLSessionTransport()
        case .asyncHTTPClient: AsyncHTTPClientTransport()
        }
    }
}

/// What the PostgreSQL outbox tests share: the fault server, a key of the test's own on it, the write endpoints,
/// and outboxes with short leases and backoff.
struct FleetFixture: Sendable {
    let server: URL
    let key = "pg-outbox-\(UUID().uuidString)"
    let transport: any Transport

    init(_ stack: Stack) throws {
        let value = try #require(
            ProcessInfo.processInfo.environment["ENDPOINTKIT_FAULT_URL"],
            "ENDPOINTKIT_FAULT_URL is not set: run these tests through scripts/test.sh, which starts the servers"
        )
        server = try #require(URL(string: value))
        transport = stack.transport()
    }

    func client() -> EndpointClient {
        var defaults = RequestDefaults()
        defaults.timeout = .seconds(5)
        return EndpointClient(environment: ServerEnvironment(baseURL: server), transport: transport, defaults: defaults)
    }

    /// A write of `text`, applied in `group`'s log on the fault server.
    func save(_ text: String, group: String, query: [URLQueryItem] = []) -> Endpoint<EndpointKinds.Public, Data> {
        Endpoint(
            method: .post,
            path: "idem/\(key)/\(group)",
            queryItems: query,
            body: DataBody(Data(text.utf8), contentType: "text/plain")
        )
    }

    /// An outbox on `database`'s schema, as instance `instance`.
    func outbox(
        _ database: TestDatabase,
        instance: String,
        lease: Duration = .seconds(2),
        policy: OutboxPolicy? = nil,
        keepSettled: Duration = .seconds(3600)
    ) throws -> PostgresOutbox<EndpointKinds.Public> {
        var fast = OutboxPolicy()
        fast.initialBackoff = .milliseconds(20)
        fast.maximumBackoff = .milliseconds(200)
        let configuration = PostgresOutboxConfiguration(
            schema: database.schema,
            instance: instance,
            leaseDuration: lease,
            pollInterval: .milliseconds(200),
            maximumGroups: 64,
            groupsPerClaim: 2,
            keepSettled: keepSettled
        )
        return try PostgresOutbox(
            postgres: database.client,
            client: client(),
            policy: policy ?? fast,
            configuration: configuration
        )
    }

    /// Every group's applied texts, in order.
    func applied() async throws -> [String: [String]] {
        struct Logs: Decodable { var groups: [String: [String]] }
        return try await client().response(for: Endpoint<EndpointKinds.Public, Logs>(path: "idem-log/\(key)")).groups
    }

    /// A count the fault server keeps, under this fixture's key.
    func count(_ name: String) async throws -> Int {
        struct Count: Decodable { var count: Int }
        return try await client().response(for: Endpoint<EndpointKinds.Public, Count>(path: "count/\(name)/\(key)"))
            .count
    }

    /// Opens the fault server's gate for this key (`?hold=1`).
    func release() async throws {
        _ = try await client().response(for: Endpoint<EndpointKinds.Public, Data>(path: "release/\(key)"))
    }
}

/// Runs `outboxes` (each in its own task) while `body` runs, then stops them gracefully and waits for each.
func running<T: Sendable>(
    _ outboxes: [PostgresOutbox<EndpointKinds.Public>],
    _ body: @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: Void.self) { group in
        for outbox in outboxes { group.addTask { try await outbox.run() } }
        let result: T
        do { result = try await body() } catch {
            group.cancelAll()
            throw error
        }
        for outbox in outboxes { outbox.stop() }
        try await group.waitForAll()
        return result
    }
}

/// The first `wanted` changes of `streams` (read at once, merged) that `matches` keeps.
func collect(
    _ streams: [OutboxChanges],
    _ wanted: Int,
    where matches: @escaping @Sendable (OutboxChange) -> Bool = { _ in true }
) async -> [OutboxChange] {
    await withTaskGroup(of: Void.self) { group in
        let (merged, continuation) = AsyncStream<OutboxChange>.makeStream()
        for stream in streams {
            group.addTask { for await change in stream where matches(change) { continuation.yield(change) } }
        }
        var seen: [OutboxChange] = []
        for await change in merged {
            seen.append(change)
            if seen.count == wanted { break }
        }
        group.cancelAll()
        return seen
    }
}

extension OutboxChange {
    /// Whether the change ends a write: sent, refused, expired or unknown.
    var endsWrite: Bool {
        switch self {
        case .sent, .refused, .expired, .unknown: true
        default: false
        }
    }
}
#endif
