import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `RateLimiter` through `StubTransport`, with slots measured and waited for on one `TestClock`.
@Suite(.timeLimit(.minutes(1))) struct RateLimiterTests {
    /// Two clients that share one storage, as two instances of a fleet share theirs.
    struct Fleet {
        let clock = TestClock()
        let storage: MemoryRateLimitStorage
        let transport: StubTransport
        let limiter: RateLimiter

        init(_ limit: RateLimit, maxWait: Duration = .seconds(60), replies: [StubResponse] = []) {
            storage = MemoryRateLimitStorage(clock: clock)
            transport = StubTransport(replies: replies)
            limiter = RateLimiter(limit, key: "api", storage: storage, maxWait: maxWait, clock: clock)
        }

        func client() -> EndpointClient {
            EndpointClient(environment: Fixture.environment, transport: transport, middleware: [limiter])
        }

        func sent() async -> Int { await transport.requests.count }
    }

    static let ok = StubResponse.json(#"{"id": 1, "name": "ok"}"#)

    @Test("Callers beyond the burst each wait for their own slot, one interval apart, and all are sent")
    func spacing() async throws {
        // 2 per second, no margin: a slot every 0.5 s.
        let fleet = Fleet(RateLimit(2, per: .seconds(1), margin: .zero), replies: Array(repeating: Self.ok, count: 5))
        let client = fleet.client()
        let calls = (0..<5).map { _ in Task { try await client.response(for: .item(1)) } }

        try await fleet.clock.waitForSleepers(4)
        #expect(
            fleet.clock.pendingSleeps.sorted() == [.milliseconds(500), .seconds(1), .milliseconds(1500), .seconds(2)]
        )
        #expect(await fleet.sent() == 1)
        for expected in 2...5 {
            fleet.clock.advance(by: .milliseconds(500))
            while await fleet.sent() < expected { await Task.yield() }
            #expect(await fleet.sent() == expected)
        }
        for call in calls { _ = try await call.value }
    }

    @Test("A slot further than maxWait fails the call at once, sends nothing and reserves nothing")
    func refusal() async throws {
        let fleet = Fleet(
            RateLimit(1, per: .seconds(10), margin: .zero),
            maxWait: .seconds(5),
            replies: [Self.ok, Self.ok]
        )
        let client = fleet.client()
        _ = try await client.response(for: .item(1))

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: .item(1)) }

        #expect(error.kind == .rateLimited)
        #expect(error.statusCode == nil)
        #expect(error.mayHaveBeenSent == false)
        #expect(error.retryAfter == .seconds(10))
        #expect(error.message.contains("no slot within 5 s (the next is in 10 s); nothing was sent"))
        #expect(error.errorDescription?.hasPrefix("A rate limit held the request back") == true)
        #expect(await fleet.sent() == 1)
        // The refused call took no slot: the next one is still 10 s after the first.
        fleet.clock.advance(by: .seconds(6))
        let next = Task { try await client.response(for: .item(1)) }
        try await fleet.clock.waitForSleepers(1)
        #expect(fleet.clock.pendingSleeps == [.seconds(4)])
        fleet.clock.advance(by: .seconds(4))
        _ = try await next.value
    }

    @Test(
        "A 429 or 503 with Retry-After, or GitHub's spent limit, pauses every client of the storage",
        arguments: ["429", "503", "github"]
    )
    func pause(kind: String) async throws {
        let reset = Int(Date().timeIntervalSince1970.rounded(.up)) + 30
        let answer: StubResponse =
            kind == "github"
            ? .response(status: 403, headers: ["x-ratelimit-remaining": "0", "x-ratelimit-reset": String(reset)])
            : .response(status: Int(kind)!, headers: [.retryAfter: "30"])
        let fleet = Fleet(RateLimit(100, per: .seconds(1)), replies: [answer, Self.ok])
        let (first, second) = (fleet.client(), fleet.client())
        _ = try? await first.response(for: .item(1))
        // GitHub's reset is a time: the pause is what was left of it when the answer came, at least what is left now.
        let leftNow = Double(reset) - Date().timeIntervalSince1970

        let waiting = Task { try await second.response(for: .item(1)) }
        try await fleet.clock.waitForSleepers(1)

        let pause = try #require(fleet.clock.pendingSleeps.first)
        if kind == "github" {
            #expect(pause >= .seconds(leftNow) - .milliseconds(1) && pause <= .seconds(31))
        } else {
            #expect(pause == .seconds(30))
        }
        #expect(await fleet.sent() == 1)
        fleet.clock.advance(by: pause)
        _ = try await waiting.value
        #expect(await fleet.sent() == 2)
    }

    @Test("A caller that waited for its slot while another was told to wait takes a slot after the pause")
    func pausedWhileWaiting() async throws {
        let fleet = Fleet(
            RateLimit(1, per: .seconds(1), margin: .zero),
            replies: [Self.ok, .response(status: 429, headers: [.retryAfter: "30"]), Self.ok]
        )
        let client = fleet.client()
        _ = try await client.response(for: .item(1))
        let waiting = Task { try await client.response(for: .item(1)) }
        try await fleet.clock.waitForSleepers(1)
        #expect(fleet.clock.pendingSleeps == [.seconds(1)])
        // Another instance is told to wait 30 s while this call waits for its slot.
        try await fleet.storage.pause("api", for: .seconds(30))

        fleet.clock.advance(by: .seconds(1))
        try await fleet.clock.waitForSleep(atLeast: .seconds(29))
        #expect(await fleet.sent() == 1)
        fleet.clock.advance(by: .seconds(29))
        _ = try? await waiting.value
        #expect(await fleet.sent() == 2)
    }

    @Test("A slot reached more than half the margin late is given up for a new one; eight in a row fail the call")
    func lateSlots() async throws {
        let clock = TestClock()
        let storage = LateStorage(lateFor: 1)
        let transport = StubTransport(replies: [Self.ok])
        let limiter = RateLimiter(RateLimit(10, per: .seconds(1)), key: "api", storage: storage, clock: clock)
        let client = EndpointClient(environment: Fixture.environment, transport: transport, middleware: [limiter])

        _ = try await client.response(for: .item(1))
        #expect(storage.reservations == 2)
        #expect(await transport.requests.count == 1)
        #expect(limiter.retakenSlots == 1)
        #expect(limiter.sentCount == 1)

        storage.lateFor = 100
        let error = try await #require(throws: EndpointError.self) { try await client.response(for: .item(1)) }
        #expect(error.kind == .rateLimited)
        #expect(error.message.contains("8 slots in a row were reached more than half its margin late"))
        #expect(storage.reservations == 2 + 8)
        #expect(await transport.requests.count == 1)
    }

    @Test("An endpoint with isRateLimited off is neither counted nor held back")
    func optOut() async throws {
        let fleet = Fleet(RateLimit(1, per: .seconds(60)), maxWait: .zero, replies: [Self.ok, Self.ok])
        let client = fleet.client()
        _ = try await client.response(for: .item(1))
        var endpoint = Endpoint<EndpointKinds.Public, Item>.item(1)
        endpoint.options.isRateLimited = false

        _ = try await client.response(for: endpoint)
        #expect(await fleet.sent() == 2)
    }

    @Test("A caller cancelled while it waits for its slot ends at once, and nothing is sent")
    func cancelledWhileWaiting() async throws {
        let fleet = Fleet(RateLimit(1, per: .seconds(60)), maxWait: .seconds(120), replies: [Self.ok])
        let client = fleet.client()
        _ = try await client.response(for: .item(1))
        let waiting = Task { try await client.response(for: .item(1)) }
        try await fleet.clock.waitForSleepers(1)

        waiting.cancel()
        let error = try await #require(throws: EndpointError.self) { try await waiting.value }
        #expect(error.kind == .cancelled)
        #expect(await fleet.sent() == 1)
    }
}

/// A storage whose first `lateFor` answers say the slot may have been a second before the answer arrived: a storage so
/// slow to answer that the caller reaches its slot late.
final class LateStorage: RateLimitStorage {
    private let state: Locked<(reservations: Int, lateFor: Int)>

    init(lateFor: Int) { state = Locked((0, lateFor)) }

    var reservations: Int { state.withLock { $0.reservations } }
    var lateFor: Int {
        get { state.withLock { $0.lateFor } }
        set { state.withLock { $0.lateFor = newValue } }
    }

    func reserve(_ key: String, limit: RateLimit, maxWait: Duration) async throws(EndpointError) -> RateLimitGrant {
        let late = state.withLock { state in
            state.reservations += 1
            state.lateFor -= 1
            return state.lateFor >= 0
        }
        return .send(after: .zero, early: late ? .seconds(1) : .zero)
    }

    func pause(_ key: String, for duration: Duration) async throws(EndpointError) {}
    func pauseRemaining(_ key: String) -> Duration? { nil }
}
