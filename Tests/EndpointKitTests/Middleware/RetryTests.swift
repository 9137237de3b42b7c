import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(1))) struct RetryTests {
    func client(_ replies: [StubResponse], policy: RetryPolicy, clock: ImmediateClock) -> (
        EndpointClient, StubTransport
    ) {
        let transport = StubTransport(replies: replies)
        return (
            EndpointClient(
                environment: Fixture.environment,
                transport: transport,
                middleware: [Retry(policy, clock: clock)]
            ), transport
        )
    }

    @Test("Retryable statuses are retried with exponentially growing delays, then the last response fails the call")
    func backoff() async throws {
        let clock = ImmediateClock()
        let (client, transport) = client(
            Array(repeating: .status(503), count: 4),
            policy: RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(100), jitter: 0),
            clock: clock
        )

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: .item(1)) }

        #expect(error.kind == .unacceptableStatus)
        #expect(error.statusCode == 503)
        #expect(error.attempts == 4)
        #expect(error.description.contains("after 4 attempts"))
        #expect(await transport.requests.count == 4)
        #expect(clock.sleeps == [.milliseconds(100), .milliseconds(200), .milliseconds(400)])
    }

    @Test("Jitter shortens delays by at most the configured fraction, and delays never shrink")
    func jitter() async throws {
        let clock = ImmediateClock()
        let (client, _) = client(
            Array(repeating: .status(502), count: 6),
            policy: RetryPolicy(maxAttempts: 6, baseDelay: .seconds(1), maxDelay: .seconds(8), jitter: 0.5),
            clock: clock
        )

        _ = try? await client.response(for: .item(1))

        let sleeps = clock.sleeps
        let nominal: [Duration] = [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(8)]
        #expect(sleeps.count == 5)
        for (sleep, expected) in zip(sleeps, nominal) {
            #expect(sleep <= expected && sleep >= expected / 2)
        }
        for index in 1..<3 { #expect(sleeps[index] >= sleeps[index - 1]) }
    }

    @Test("A retry that succeeds returns the value")
    func recovers() async throws {
        let clock = ImmediateClock()
        let (client, _) = client(
            [.status(503), .connectionLost(), .json(#"{"id": 1, "name": "ok"}"#)],
            policy: RetryPolicy(maxAttempts: 3),
            clock: clock
        )

        let item = try await client.response(for: .item(1))

        #expect(item.name == "ok")
        #expect(clock.sleeps.count == 2)
    }

    @Test(
        "Retry-After in seconds or as an HTTP-date replaces the computed delay",
        arguments: ["30", "RETRY-AFTER-DATE"]
    )
    func retryAfter(value: String) async throws {
        let clock = ImmediateClock()
        // An HTTP-date has whole seconds: the time it names is the whole second 30.9 s from now, rounded down.
        let retryTime = (Date().timeIntervalSince1970 + 30.9).rounded(.down)
        let isDate = value == "RETRY-AFTER-DATE"
        let header = isDate ? httpDate(Date(timeIntervalSince1970: retryTime)) : value
        let (client, _) = client(
            [.response(status: 429, headers: [.retryAfter: header]), .json(#"{"id": 1, "name": "ok"}"#)],
            policy: RetryPolicy(baseDelay: .milliseconds(1)),
            clock: clock
        )

        let before = Date().timeIntervalSince1970
        _ = try await client.response(for: .item(1))
        let after = Date().timeIntervalSince1970

        let sleep = try #require(clock.sleeps.first)
        if isDate {
            // Read against the wall clock during the call (rounded up to the millisecond), however slow the machine.
            #expect(sleep >= .seconds(retryTime - after) && sleep <= .seconds(retryTime - before) + .milliseconds(1))
        } else {
            #expect(sleep == .seconds(30))
        }
    }

    @Test("A GitHub-style rate limit (403, remaining 0, reset time) is waited for until its reset, then retried")
    func rateLimitReset() async throws {
        let clock = ImmediateClock()
        let resetTime = Int(Date().timeIntervalSince1970) + 30
        let reset = String(resetTime)
        let (client, transport) = client(
            [
                .response(status: 403, headers: ["x-ratelimit-remaining": "0", "x-ratelimit-reset": reset]),
                .json(#"{"id": 1, "name": "ok"}"#),
            ],
            policy: RetryPolicy(baseDelay: .milliseconds(1), rateLimitReset: .github),
            clock: clock
        )

        let before = Date().timeIntervalSince1970
        let item = try await client.response(for: .item(1))
        let after = Date().timeIntervalSince1970

        // The reset time less the wall clock read during the call (rounded up to the millisecond), however slow the machine.
        let sleep = try #require(clock.sleeps.first)
        #expect(
            sleep >= .seconds(Double(resetTime) - after)
                && sleep <= .seconds(Double(resetTime) - before) + .milliseconds(1)
        )
        #expect(sleep > .zero)
        #expect(item.name == "ok")
        #expect(await transport.requests.count == 2)
    }

    @Test("A rate limit that resets later than the policy waits fails at once with rateLimited and the wait asked")
    func rateLimitTooFar() async throws {
        let clock = ImmediateClock()
        let (client, transport) = client(
            [.response(status: 429, headers: ["x-ratelimit-remaining": "0", "x-ratelimit-reset": "3600"])],
            policy: RetryPolicy(
                maxRetryAfter: .seconds(90),
                rateLimitReset: RateLimitReset(format: .secondsFromNow)
            ),
            clock: clock
        )

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: .item(1)) }

        #expect(error.kind == .rateLimited)
        #expect(error.statusCode == 429)
        #expect(error.retryAfter == .seconds(3600))
        #expect(error.message.contains("60 min"))
        #expect(await transport.requests.count == 1)
        #expect(clock.sleeps.isEmpty)
    }

    @Test(
        "A 403 is not a rate limit without remaining 0, nor when the policy reads no reset header",
        arguments: [("5", true), ("0", false)]
    )
    func notARateLimit(remaining: String, readsReset: Bool) async throws {
        let clock = ImmediateClock()
        let headers: HTTPHeaders = ["x-ratelimit-remaining": remaining, "x-ratelimit-reset": "1"]
        let (client, transport) = client(
            [.response(status: 403, headers: headers)],
            policy: RetryPolicy(rateLimitReset: readsReset ? .github : nil),
            clock: clock
        )

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: .item(1)) }

        #expect(error.kind == .unacceptableStatus)
        #expect(error.statusCode == 403)
        #expect(await transport.requests.count == 1)
    }

    @Test("A Retry-After longer than the policy allows is not waited for: the call fails with rateLimited")
    func retryAfterTooLong() async throws {
        let clock = ImmediateClock()
        let (client, transport) = client(
            [.response(status: 503, headers: [.retryAfter: "3600"])],
            policy: RetryPolicy(maxRetryAfter: .seconds(60)),
            clock: clock
        )

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: .item(1)) }

        #expect(error.kind == .rateLimited)
        #expect(error.retryAfter == .seconds(3600))
        #expect(error.statusCode == 503)
        #expect(await transport.requests.count == 1)
        #expect(clock.sleeps.isEmpty)
    }

    @Test("POST is not retried by default")
    func postNotRetried() async throws {
        let clock = ImmediateClock()
        let (client, transport) = client([.status(503)], policy: RetryPolicy(), clock: clock)

        let error = try await #require(throws: EndpointError.self) {
            try await client.response(
                for: .createItem(NewItem(name: "a", createdAt: Date())),
                using: AccessToken("t")
            )
        }

        #expect(error.attempts == 1)
        #expect(await transport.requests.count == 1)
    }

    @Test("Statuses not chosen and permanent failures are not retried", arguments: [400, 404, 500])
    func notRetryable(status: Int) async throws {
        let clock = ImmediateClock()
        let (client, transport) = client([.status(status)], policy: RetryPolicy(), clock: clock)

        _ = try? await client.response(for: .item(1))

        #expect(await transport.requests.count == 1)
    }

    @Test("An endpoint can switch retrying off")
    func perEndpointOff() async throws {
        let clock = ImmediateClock()
        let (client, transport) = client([.status(503)], policy: RetryPolicy(), clock: clock)
        var endpoint = Endpoint.item(1)
        endpoint.options.retryPolicy = .never

        _ = try? await client.response(for: endpoint)

        #expect(await transport.requests.count == 1)
    }

    @Test("Cancelling during a backoff wait returns at once with cancelled")
    func cancelDuringBackoff() async throws {
        let transport = StubTransport(replies: [.status(503), .status(503)])
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: transport,
            middleware: [Retry(RetryPolicy(baseDelay: .seconds(600), jitter: 0))]
        )

        let task = Task { try await client.response(for: .item(1)) }
        while await transport.requests.isEmpty { await Task.yield() }
        task.cancel()
        let result = await task.result

        let error = try #require(throws: EndpointError.self) { try result.get() }
        #expect(error.kind == .cancelled)
        #expect(await transport.requests.count == 1)
    }

    @Test("Retry-After parsing accepts delay-seconds and HTTP-dates and rejects the rest")
    func parsing() throws {
        let now = Date(timeIntervalSince1970: 1_000_000)

        #expect(RetryPolicy.retryAfter("120", now: now) == .seconds(120))
        #expect(RetryPolicy.retryAfter(httpDate(now.addingTimeInterval(30)), now: now) == .seconds(30))
        #expect(RetryPolicy.retryAfter(httpDate(now.addingTimeInterval(-30)), now: now) == .zero)
        #expect(RetryPolicy.retryAfter("soon", now: now) == nil)
        #expect(RetryPolicy.retryAfter("-5", now: now) == nil)
        #expect(RetryPolicy.retryAfter(String(repeating: "9", count: 400), now: now) == .seconds(1_000_000_000))
        #expect(RetryPolicy.retryAfter("Fri, 31 Dec 9999 23:59:59 GMT", now: now) == .seconds(1_000_000_000))
        #expect(RetryPolicy.retryAfter(nil, now: now) == nil)
    }

    @Test(
        "A Retry-After of non-ASCII text is no wait, and never reaches the date formatter (found by fuzzing: it crashed)"
    )
    func nonASCIIRetryAfter() {
        // The bytes the fuzzer found: Foundation's DateFormatter stopped the process on them.
        let found = String(
            decoding: [
                0x77, 0xDB, 0xA0, 0x12, 0x89, 0xC0, 0x6D, 0x6D, 0x6D, 0x6D, 0x32, 0xDB, 0xA0, 0x0E,
                0x89, 0xC0, 0x6D, 0x6D, 0x6D, 0x3A, 0x32, 0x46, 0x46,
            ] as [UInt8],
            as: UTF8.self
        )
        #expect(RetryPolicy.retryAfter(found) == nil)
        #expect(RetryPolicy.retryAfter("Fri, 31 Dec 9999 23:59:59 GMT\u{301}") == nil)
        #expect(RetryPolicy.retryAfter(String(repeating: "Fri, ", count: 100)) == nil)
    }

    @Test(
        "A Retry-After or rate-limit reset too large for Int fails with rateLimited instead of stopping the process",
        arguments: [
            "9223372036854775807", "9223372036854775808", "99999999999999999999999999999999", "18446744073709551616",
        ]
    )
    func hugeServerWaits(value: String) async throws {
        let clock = ImmediateClock()
        var policy = RetryPolicy(maxRetryAfter: .seconds(60))
        policy.rateLimitReset = RateLimitReset(format: .secondsFromNow)
        let (client, _) = client(
            [
                .response(status: 503, headers: [.retryAfter: value]),
                .response(status: 429, headers: ["x-ratelimit-remaining": "0", "x-ratelimit-reset": value]),
            ],
            policy: policy,
            clock: clock
        )

        let retryAfter = try await #require(throws: EndpointError.self) { try await client.response(for: .item(1)) }
        let reset = try await #require(throws: EndpointError.self) { try await client.response(for: .item(1)) }

        for error in [retryAfter, reset] {
            #expect(error.kind == .rateLimited)
            #expect(error.retryAfter == .seconds(1_000_000_000))
            #expect(error.message.contains("277777 h"))
            #expect(error.message.contains("longer than the 60 s the retry policy allows"))
        }
        #expect(clock.sleeps.isEmpty)
    }

    @Test("Server waits print rounded with their unit")
    func readableWaits() {
        #expect(Duration.milliseconds(250).readable == "250 ms")
        #expect(Duration.seconds(2.499998718).readable == "2.5 s")
        #expect(Duration.seconds(3).readable == "3 s")
        #expect(Duration.seconds(0.9999996).readable == "1 s")
        #expect(Duration.seconds(90).readable == "90 s")
        #expect(Duration.seconds(600).readable == "10 min")
        #expect(Duration.seconds(7500).readable == "2 h 5 min")
    }

    @Test("Nominal delays never overflow, however many attempts")
    func hugeAttempts() {
        let policy = RetryPolicy(maxAttempts: 10_000, baseDelay: .seconds(1), multiplier: 10, maxDelay: .seconds(30))

        #expect(policy.nominalDelay(afterAttempt: 1) == .seconds(1))
        #expect(policy.nominalDelay(afterAttempt: 2) == .seconds(10))
        #expect(policy.nominalDelay(afterAttempt: 5_000) == .seconds(30))
    }
}
