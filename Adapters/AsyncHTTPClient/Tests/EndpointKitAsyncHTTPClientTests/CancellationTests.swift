#if AsyncHTTPClient
import AsyncHTTPClient
import EndpointKit
import EndpointKitAsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import Testing

/// Counts the attempts that started: the signal that calls reached the transport.
private final class AttemptCount: ExchangeObserver {
    private let count = NIOLockedValueBox(0)
    var value: Int { count.withLockedValue { $0 } }

    func observe(_ event: ExchangeEvent) {
        if case .attemptStarted = event { count.withLockedValue { $0 += 1 } }
    }
}

/// A call cancelled before its request is written is never sent, whether it is cancelled before it starts, while
/// it waits for a pooled connection, or while earlier calls of its batch are being cancelled.
@Suite(.timeLimit(.minutes(2)))
struct CancellationTests {
    @Test("1,000 calls cancelled while the pool's two connections are held reach the server never, round after round")
    func cancelledWhileWaitingForAConnection() async throws {
        var configuration = AsyncHTTPClientTransport.defaultConfiguration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 2
        let transport = AsyncHTTPClientTransport(configuration: configuration)
        let attempts = AttemptCount()
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.fault()),
            transport: transport,
            observers: [attempts]
        )
        let counters = try Counters()

        for round in 1...3 {
            let key = UUID().uuidString
            // Both connections held by requests the server never answers: nothing else can be written.
            let hold = Self.held(key)
            let holds = (0..<2).map { _ in Task { try await client.response(for: hold) } }
            while try await counters.count("hold", key) < 2 { await Task.yield() }

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
            #expect(try await counters.count("echo", key) == 0, "round \(round): cancelled calls reached the server")
        }
        try await transport.shutdown()
    }

    @Test(
        "A batch of 1,000 held calls, cancelled in a loop in the order made once the pool is full, sends nothing more"
    )
    func cancelledBatch() async throws {
        // The default configuration, as a user has it: its pool's connections per host are what the server holds.
        let connections = AsyncHTTPClientTransport.defaultConfiguration().connectionPool
            .concurrentHTTP1ConnectionsPerHostSoftLimit
        let transport = AsyncHTTPClientTransport()
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.fault()),
            transport: transport
        )
        let counters = try Counters()

        for round in 1...5 {
            let key = UUID().uuidString
            let hold = Self.held(key)
            let calls = (0..<1_000).map { _ in Task { try await client.response(for: hold) } }
            // Nothing else can be written once the server holds one request per connection.
            while try await counters.count("hold", key) < connections { await Task.yield() }
            let before = try await counters.count("hold", key)
            // Cancelling a held call frees its connection while later calls are not cancelled yet.
            for call in calls { call.cancel() }
            for call in calls { _ = await call.result }
            // Calls still queued would go out first, ahead of these, on the freed connections.
            for _ in 0..<4 {
                _ = try await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "echo/marker-\(key)"))
            }

            let after = try await counters.count("hold", key)
            #expect(
                after == before,
                "round \(round): \(after - before) requests reached the server after the loop began"
            )
        }
        try await transport.shutdown()
    }

    /// A request the fault server never answers, with a deadline far beyond the test.
    static func held(_ key: String) -> Endpoint<EndpointKinds.Public, Data> {
        var hold = Endpoint<EndpointKinds.Public, Data>(path: "hold/\(key)")
        hold.timeout = .seconds(100)
        return hold
    }
}
#endif
