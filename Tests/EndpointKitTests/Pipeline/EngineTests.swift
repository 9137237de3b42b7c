import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one engine behind every verb: what each verb asks the transport to do with the body, the one deadline
/// enforcement chosen per client, the one attempt counter, and the one clock every timing reads.
@Suite(.timeLimit(.minutes(1)))
struct EngineTests {
    @Test("Each verb tells the transport what it does with the body, beside the request and not in it")
    func optionsPerVerb() async throws {
        let transport = StubTransport { _ in .json("[]") }
        var defaults = RequestDefaults()
        defaults.maximumResponseSize = 4096
        defaults.timeout = .seconds(7)
        defaults.idleTimeout = .seconds(3)
        // A clock that does not move: the 7 s deadline is only passed along, never reached on a loaded machine.
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: transport,
            defaults: defaults,
            clock: TestClock()
        )
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("engine-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        _ = try await client.response(for: .featuredItems)
        _ = try await client.stream(for: .featuredItems)
        _ = try await client.download(for: .featuredItems, to: folder.appendingPathComponent("items.json")).result()

        let options = await transport.sentOptions
        try #require(options.count == 3)
        guard case .collect(let limit) = options[0].body else {
            Issue.record("response(for:) did not ask to collect the body: \(options[0].body)")
            return
        }
        #expect(limit == 4096)
        guard case .stream(let bufferLimit) = options[1].body else {
            Issue.record("stream(for:) did not ask to stream the body: \(options[1].body)")
            return
        }
        #expect(bufferLimit == 4096)
        guard case .write = options[2].body else {
            Issue.record("download(for:to:) did not give the transport a sink: \(options[2].body)")
            return
        }
        for sent in options {
            #expect(sent.timeout == .seconds(7))
            #expect(sent.idleTimeout == .seconds(3))
            #expect(sent.uploadProgress == nil, "nobody observes, so no upload progress is asked for")
        }
        #expect(options[0].timeoutCoversBody)
        #expect(!options[1].timeoutCoversBody)
        #expect(!options[2].timeoutCoversBody)
    }

    @Test("A transport that enforces deadlines, on real time, gets the time left and no task or timer of the client's")
    func transportEnforcedDeadline() async throws {
        let transport = TaskRecordingTransport(enforcesTimeout: true)
        var defaults = RequestDefaults()
        defaults.timeout = .seconds(30)
        let client = EndpointClient(environment: Fixture.environment, transport: transport, defaults: defaults)
        let caller = withUnsafeCurrentTask { $0?.hashValue }

        let items = try await client.response(for: .featuredItems)

        #expect(items.isEmpty)
        let sent = try #require(transport.sends.withLock { $0 }.first)
        #expect(sent.task == caller, "the attempt ran in the caller's own task: the client started none to time it")
        let timeout = try #require(sent.timeout)
        #expect(timeout <= .seconds(30) && timeout > .seconds(29), "the time left of the one deadline")
    }

    @Test("A transport that does not enforce deadlines is timed by the client: the attempt runs in a task of its own")
    func clientEnforcedDeadlineOnRealTime() async throws {
        let transport = TaskRecordingTransport(enforcesTimeout: false)
        let client = EndpointClient(environment: Fixture.environment, transport: transport)
        let caller = withUnsafeCurrentTask { $0?.hashValue }

        _ = try await client.response(for: .featuredItems)

        let sent = try #require(transport.sends.withLock { $0 }.first)
        #expect(sent.task != caller)
        #expect(sent.timeout == .seconds(60), "a transport that does not enforce it still hears the deadline")
    }

    @Test("On another clock the client races each attempt against a sleep on that clock, whatever the transport says")
    func clockEnforcedDeadline() async throws {
        let clock = TestClock()
        let transport = DeadlineTrustingTransport()
        var defaults = RequestDefaults()
        defaults.timeout = .seconds(5)
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: transport,
            defaults: defaults,
            clock: clock
        )

        let call = Task { () async throws(EndpointError) -> [Item] in try await client.response(for: .featuredItems) }
        try await clock.waitForSleep(atLeast: .seconds(5), atMost: .seconds(5))
        clock.advance(by: .seconds(5))
        let error = try await #require(throws: EndpointError.self) { try await call.value }

        #expect(error.kind == .timedOut)
        #expect(error.message.contains("5 s"))
    }

    @Test("Cancelling a call the engine's own timer races ends it as cancelled at once, not as timed out")
    func cancelUnderTheEngineTimer() async throws {
        let sent = Gate()
        let never = Gate()
        // Does not enforce deadlines, so the engine races the attempt against its shared timer on real time.
        let transport = StubTransport { _ in
            sent.open()
            await never.wait()
            return .json("[]")
        }
        let client = EndpointClient(environment: Fixture.environment, transport: transport)

        let call = Task { () async throws(EndpointError) -> [Item] in try await client.response(for: .featuredItems) }
        await sent.wait()
        call.cancel()
        let error = try await #require(throws: EndpointError.self) { try await call.value }

        #expect(error.kind == .cancelled)
    }

    @Test("Response timings and stub delays read the client's clock: a TestClock makes them exact")
    func timingsOnTheInjectedClock() async throws {
        let clock = TestClock()
        let transport = StubTransport(replies: [StubResponse.json("[]").delayed(by: .seconds(2))], clock: clock)
        var defaults = RequestDefaults()
        defaults.timeout = nil
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: transport,
            defaults: defaults,
            clock: clock
        )

        let call = Task { () async throws(EndpointError) -> EndpointKit.Response<[Item]> in
            try await client.exchange(for: .featuredItems)
        }
        try await clock.waitForSleep(atLeast: .seconds(2), atMost: .seconds(2))
        clock.advance(by: .seconds(2))
        let response = try await call.value

        #expect(response.timeToFirstByte == .seconds(2))
        #expect(response.duration == .seconds(2))
    }

    @Test("Every step reads the call's one attempt counter: a step outside Retry sees the attempts Retry made")
    func oneAttemptCounter() async throws {
        let transport = StubTransport(replies: [.status(503), .status(503), .json("[]")])
        let seen = Locked([Int]())
        let outer = AttemptReader(seen: seen)
        var defaults = RequestDefaults()
        defaults.timeout = nil  // the immediate clock would end any deadline at once
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: transport,
            defaults: defaults,
            middleware: [outer, Retry(RetryPolicy(maxAttempts: 3, baseDelay: .zero, jitter: 0))],
            clock: ImmediateClock()
        )

        let response = try await client.exchange(for: .featuredItems)

        #expect(seen.withLock { $0 } == [0, 3], "before the first send, and after the third")
        #expect(response.attempts == 3)
    }

    @Test("decoding(as:) changes the response type only: URL, headers, body, settings and options are kept")
    func decodingKeepsEverythingElse() {
        var endpoint = Endpoint.createItem(NewItem(name: "tea", createdAt: Date(timeIntervalSince1970: 0)))
        endpoint.headers["X-Trace"] = "1"
        endpoint.timeout = .seconds(3)
        endpoint.idleTimeout = .seconds(2)
        endpoint.maximumResponseSize = 10
        endpoint.options.isLogged = false
        endpoint.url = URL(string: "https://other.test/items")

        let raw = endpoint.decoding(as: Data.self)

        #expect(raw.method == .post && raw.path == endpoint.path && raw.url == endpoint.url)
        #expect(raw.headers["X-Trace"] == "1" && raw.body != nil)
        #expect(raw.timeout == .seconds(3) && raw.idleTimeout == .seconds(2) && raw.maximumResponseSize == 10)
        #expect(!raw.options.isLogged)
    }

    @Test("An event stream whose request cannot be built fails when asked for, not at its first event")
    func eventStreamFailsEarly() async throws {
        let transport = StubTransport(replies: [])
        let client = EndpointClient(environment: Fixture.environment, transport: transport)
        var endpoint = Endpoint<EndpointKinds.Public, ServerSentEvents>(path: "events")
        endpoint.headers["X-Bad"] = "line\r\nbreak"

        let error = try await #require(throws: EndpointError.self) { try await client.stream(for: endpoint) }

        #expect(error.kind == .invalidRequest)
        #expect(await transport.requests.isEmpty)
    }
}

/// Answers `[]` at once, noting the task it was called in and the deadline it was given.
private final class TaskRecordingTransport: Transport {
    let enforcesTimeout: Bool
    let sends = Locked([(task: Int?, timeout: Duration?)]())
    init(enforcesTimeout: Bool) { self.enforcesTimeout = enforcesTimeout }
    func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse {
        let task = withUnsafeCurrentTask { $0?.hashValue }
        sends.withLock { $0.append((task, options.timeout)) }
        return TransportResponse(statusCode: 200, data: Data("[]".utf8))
    }
}

/// Says it enforces deadlines but answers only when cancelled or never: what a client on another clock must time.
private final class DeadlineTrustingTransport: Transport {
    var enforcesTimeout: Bool { true }
    func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse {
        await Gate().wait()  // never opened: only cancellation ends the wait
        throw CancellationError()
    }
}

/// Notes the call's attempt number before and after the rest of the chain.
private struct AttemptReader: Middleware {
    let seen: Locked<[Int]>
    func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext) async throws
        -> TransportResponse
    {
        seen.withLock { $0.append(context.attempt) }
        let response = try await next(request, context: context)
        seen.withLock { $0.append(context.attempt) }
        return response
    }
}
