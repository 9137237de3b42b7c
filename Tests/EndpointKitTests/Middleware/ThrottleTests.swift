import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Counts requests in flight at the transport.
actor InFlightCounter {
    private(set) var current = 0
    private(set) var peak = 0
    func enter() {
        current += 1
        peak = max(peak, current)
    }
    func leave() { current -= 1 }
}

@Suite struct ThrottleTests {
    /// Answers after 10 ms, counting requests in flight.
    static func slowServer(counting counter: InFlightCounter) -> StubTransport {
        StubTransport { _ in
            await counter.enter()
            try await Task.sleep(for: .milliseconds(10))
            await counter.leave()
            return .json("[]")
        }
    }

    @Test("No more than the limit are ever in flight, and all complete")
    func limit() async throws {
        let counter = InFlightCounter()
        let transport = Self.slowServer(counting: counter)
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
        let counter = InFlightCounter()
        let transport = Self.slowServer(counting: counter)
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
        try await Task.sleep(for: .milliseconds(20))
        waiter.cancel()
        let result = await waiter.result
        let next = Task { try await gate.acquire() }
        gate.release()
        try await next.value

        #expect(throws: CancellationError.self) { try result.get() }
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
            try await Task.sleep(for: .milliseconds(10))
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
