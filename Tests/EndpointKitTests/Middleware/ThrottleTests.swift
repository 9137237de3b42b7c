import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Counts requests in flight at the transport, and opens a gate once `fullAt` are in flight together.
actor InFlightCounter {
    private(set) var current = 0
    private(set) var peak = 0
    let full = Gate()
    let fullAt: Int

    init(fullAt: Int) { self.fullAt = fullAt }

    func enter() {
        current += 1
        peak = max(peak, current)
        if current >= fullAt { full.open() }
    }
    func leave() { current -= 1 }
}

@Suite(.timeLimit(.minutes(1))) struct ThrottleTests {
    /// Holds every request until the limit's worth are in flight together: a throttle that let fewer through
    /// would never fill it, and the time limit would fail the test.
    static func server(counting counter: InFlightCounter) -> StubTransport {
        StubTransport { _ in
            await counter.enter()
            await counter.full.wait()
            await counter.leave()
            return .json("[]")
        }
    }

    @Test("No more than the limit are ever in flight, and all complete")
    func limit() async throws {
        let counter = InFlightCounter(fullAt: 4)
        let transport = Self.server(counting: counter)
        let throttle = Throttle(maxConcurrent: 4)
        let client = EndpointClient(environment: Fixture.environment, transport: transport, middleware: [throttle])

        let completed = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<40 { group.addTask { try await client.response(for: .featuredItems).count } }
            return try await group.reduce(0) { count, _ in count + 1 }
        }

        #expect(completed == 40)
        #expect(await counter.peak == 4)
        #expect(throttle.peakConcurrency == 4)
    }

    @Test("A per-host limit applies to each host")
    func perHost() async throws {
        let counter = InFlightCounter(fullAt: 2)
        let transport = Self.server(counting: counter)
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: transport,
            middleware: [Throttle(maxConcurrent: 10, maxConcurrentPerHost: 2)]
        )

        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<12 { group.addTask { _ = try await client.response(for: .featuredItems) } }
            try await group.waitForAll()
        }

        #expect(await counter.peak == 2)
    }

    @Test("A cancelled waiter leaves the line at once and the others are served")
    func cancelledWaiter() async throws {
        let gate = AsyncSemaphore(permits: 1)
        try await gate.acquire()

        let waiter = Task { try await gate.acquire() }
        while gate.waiting < 1 { await Task.yield() }
        waiter.cancel()
        let result = await waiter.result
        let next = Task { try await gate.acquire() }
        while gate.waiting < 1 { await Task.yield() }
        gate.release()
        try await next.value

        #expect(throws: CancellationError.self) { try result.get() }
        #expect(gate.waiting == 0)
    }

    @Test("Waiters are served in arrival order")
    func fifo() async throws {
        let gate = AsyncSemaphore(permits: 1)
        try await gate.acquire()
        let order = Locked([Int]())

        var tasks: [Task<Void, any Error>] = []
        for index in 0..<5 {
            tasks.append(
                Task {
                    try await gate.acquire()
                    order.withLock { $0.append(index) }
                    gate.release()
                }
            )
            // The next task starts only once this one stands in line, so arrival order is known.
            while gate.waiting < index + 1 { await Task.yield() }
        }
        gate.release()
        for task in tasks { try await task.value }

        #expect(order.withLock { $0 } == [0, 1, 2, 3, 4])
    }

    @Test("An endpoint can skip the throttle")
    func skip() async throws {
        let throttle = Throttle(maxConcurrent: 1)
        let transport = StubTransport(replies: [.json("[]")])
        let client = EndpointClient(environment: Fixture.environment, transport: transport, middleware: [throttle])
        var endpoint = Endpoint.featuredItems
        endpoint.options.isThrottled = false

        _ = try await client.response(for: endpoint)

        #expect(throttle.peakConcurrency == 0)
    }
}
