import EndpointKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Counts the attempts that started: the signal that calls reached the transport.
private final class AttemptCount: ExchangeObserver {
    private let lock = NSLock()
    // Safe because every access holds `lock`.
    nonisolated(unsafe) private var count = 0
    var value: Int { lock.withLock { count } }

    func observe(_ event: ExchangeEvent) {
        if case .attemptStarted = event { lock.withLock { count += 1 } }
    }
}

/// The fault server's count for `name/key`, read through a client of its own.
private func count(_ name: String, _ key: String) async throws -> Int {
    struct Tally: Decodable { var count: Int }
    let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
    return try await client.response(for: Endpoint<EndpointKinds.Public, Tally>(path: "count/\(name)/\(key)")).count
}

/// A call cancelled before its request is written is never sent, whether it is cancelled before it starts, while
/// it waits for a pooled connection, or while earlier calls of its batch are being cancelled.
@Suite(.timeLimit(.minutes(2)))
struct CancellationIntegrationTests {
    @Test("1,000 calls cancelled while the pool's two connections are held reach the server never, round after round")
    func cancelledWhileWaitingForAConnection() async throws {
        let configuration = URLSessionTransport.defaultConfiguration()
        configuration.httpMaximumConnectionsPerHost = 2
        let transport = URLSessionTransport(configuration: configuration)
        let attempts = AttemptCount()
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.fault()),
            transport: transport,
            observers: [attempts]
        )

        for round in 1...3 {
            let key = UUID().uuidString
            // Both connections held by requests the server never answers: nothing else can be written.
            let hold = Self.held(key)
            let holds = (0..<2).map { _ in Task { try await client.response(for: hold) } }
            while try await count("hold", key) < 2 { await Task.yield() }

            let started = attempts.value
            let echo = Endpoint<EndpointKinds.Public, Data>(path: "echo/\(key)")
            let calls = (0..<1_000).map { _ in Task { try await client.response(for: echo) } }
            // Cancelled once every call has started its attempt: on its way to the pool, or waiting in it.
            while attempts.value < started + 1_000 { await Task.yield() }
            for call in calls { call.cancel() }
            var cancelled = 0
            for call in calls {
                if case .failure(let error as EndpointError) = await call.result, error.kind == .cancelled {
                    cancelled += 1
                }
            }
            for held in holds { held.cancel() }
            for held in holds { _ = await held.result }
            // Calls still queued would go out first, ahead of these, on the freed connections.
            for _ in 0..<4 {
                _ = try await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "echo/marker-\(key)"))
            }

            #expect(cancelled == 1_000, "round \(round)")
            #expect(try await count("echo", key) == 0, "round \(round): cancelled calls reached the server")
        }
    }

    @Test(
        "A batch of 1,000 held calls, cancelled in a loop in the order made once the pool is full, sends nothing more"
    )
    func cancelledBatch() async throws {
        // The default transport, as a user has it: its pool's connections per host are what the server holds.
        let connections = URLSessionTransport.defaultConfiguration().httpMaximumConnectionsPerHost
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))

        for round in 1...5 {
            let key = UUID().uuidString
            let hold = Self.held(key)
            let calls = (0..<1_000).map { _ in Task { try await client.response(for: hold) } }
            // Nothing else can be written once the server holds one request per connection.
            while try await count("hold", key) < connections { await Task.yield() }
            let before = try await count("hold", key)
            // Cancelling a held call frees its connection while later calls are not cancelled yet.
            for call in calls { call.cancel() }
            for call in calls { _ = await call.result }
            // Calls still queued would go out first, ahead of these, on the freed connections.
            for _ in 0..<4 {
                _ = try await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "echo/marker-\(key)"))
            }

            let after = try await count("hold", key)
            #expect(
                after == before,
                "round \(round): \(after - before) requests reached the server after the loop began"
            )
        }
    }

    /// A request the fault server never answers, with a deadline far beyond the test.
    static func held(_ key: String) -> Endpoint<EndpointKinds.Public, Data> {
        var hold = Endpoint<EndpointKinds.Public, Data>(path: "hold/\(key)")
        hold.timeout = .seconds(100)
        return hold
    }
}
