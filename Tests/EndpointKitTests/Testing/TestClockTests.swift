import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

@Suite(.timeLimit(.minutes(1))) struct TestClockTests {
    @Test("A test waits for Retry's backoff by its length, past the deadline timer that also sleeps, and advances it")
    func waitsForTheBackoff() async throws {
        let clock = TestClock()
        let transport = StubTransport(replies: [.status(503), .json(#"{"id": 1, "name": "ok"}"#)])
        var defaults = RequestDefaults()
        defaults.timeout = .seconds(60)
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: transport,
            defaults: defaults,
            middleware: [Retry(RetryPolicy(baseDelay: .milliseconds(100), jitter: 0))],
            clock: clock
        )

        let call = Task { () async throws(EndpointError) -> Item in try await client.response(for: .item(1)) }
        try await clock.waitForSleep(atLeast: .milliseconds(100), atMost: .milliseconds(100))
        clock.advance(by: .milliseconds(100))
        let item = try await call.value

        #expect(item.id == 1)
        #expect(await transport.requests.count == 2)
    }

    @Test("A wait that never comes true throws after its timeout, listing the sleeps that were pending")
    func waitTimesOutWithPendingSleeps() async throws {
        let clock = TestClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(60)) }
        try await clock.waitForSleepers(1)

        let error = try await #require(throws: TestClock.WaitTimedOut.self) {
            try await clock.waitForSleep(atLeast: .seconds(61), timeout: .milliseconds(50))
        }
        let noSecond = try await #require(throws: TestClock.WaitTimedOut.self) {
            try await clock.waitForSleepers(2, timeout: .milliseconds(50))
        }
        sleeper.cancel()

        #expect(error.pendingSleeps == [.seconds(60)])
        #expect(error.description.contains("a sleep of at least 61.0 seconds"))
        #expect(error.description.contains("60.0 seconds"))
        #expect(noSecond.description.contains("2 sleeper(s)"))
    }
}
