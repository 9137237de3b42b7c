import EndpointKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct APIError: Error, Decodable, Sendable, Equatable {
    var code: Int
    var message: String
}

/// Collects exchange records from ``ExchangeLogging`` with the time each was reported.
final class ExchangeLog: @unchecked Sendable {
    // Safe because every access to `entries` holds `lock`.
    private var entries: [(record: ExchangeRecord, at: ContinuousClock.Instant)] = []
    private let lock = NSLock()

    func middleware() -> ExchangeLogging {
        ExchangeLogging { record in
            let now = ContinuousClock.now
            self.lock.lock()
            self.entries.append((record, now))
            self.lock.unlock()
        }
    }

    var records: [(record: ExchangeRecord, at: ContinuousClock.Instant)] {
        lock.lock()
        defer { lock.unlock() }
        return entries
    }

    /// Waits until `count` exchanges were reported, for calls still running in another task.
    func waitFor(_ count: Int) async throws -> [(record: ExchangeRecord, at: ContinuousClock.Instant)] {
        for _ in 0..<1000 where records.count < count { try await Task.sleep(for: .milliseconds(10)) }
        return records
    }
}

/// A count from the fault server: of held requests, or of held connections the client closed.
private struct HoldCount: Decodable { var count: Int }

@Suite(.timeLimit(.minutes(1)))
struct PipelineIntegrationTests {
    @Test("An error envelope in a 200 body from a real server becomes a typed server error")
    func errorEnvelope() async throws {
        let body = Data(#"{"error": {"code": 42, "message": "quota exceeded"}}"#.utf8).base64EncodedString()
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.httpbin()),
            validators: [.errorEnvelope(APIError.self)]
        )

        let error = try await #require(throws: EndpointError.self) {
            try await client.response(for: Endpoint<EndpointKinds.Public, Item>(path: "base64/\(body)"))
        }

        #expect(error.kind == .responseRejected)
        #expect(error.statusCode == 200)
        #expect(error.serverError(as: APIError.self) == APIError(code: 42, message: "quota exceeded"))
    }

    @Test("A validator refreshes a token with another request, then the call is replayed and accepted")
    func validatorRefreshThenReplay() async throws {
        let tokens = TokenBox()
        let httpbin = try TestServers.httpbin()
        let plain = EndpointClient(environment: ServerEnvironment(baseURL: httpbin))
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: httpbin),
            middleware: [BearerFromBox(box: tokens)],
            validators: [
                ResponseValidator { response, _ in
                    guard response.statusCode == 401 else { return .accept }
                    return .retry(
                        .afterRunning {
                            let issued = try await plain.response(for: .uuid)
                            await tokens.set(issued.uuid)
                        }
                    )
                }
            ]
        )

        let result = try await client.response(for: .bearerWithoutToken)

        #expect(result.authenticated)
        #expect(result.token == (await tokens.value))
    }

    @Test("/status/503 is retried the configured number of times with growing delays")
    func retries503() async throws {
        let log = ExchangeLog()
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.httpbin()),
            middleware: [
                Retry(RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(100), jitter: 0)), log.middleware(),
            ]
        )

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: .status(503)) }
        let records = try await log.waitFor(4)

        #expect(error.kind == .unacceptableStatus)
        #expect(error.attempts == 4)
        #expect(records.map(\.record.attempt) == [1, 2, 3, 4])
        #expect(records.allSatisfy { $0.record.statusCode == 503 })
        let gaps = zip(records.dropFirst(), records).map { $0.at - $1.at }
        #expect(gaps[0] >= .milliseconds(100))
        #expect(gaps[1] >= .milliseconds(200))
        // Lower bounds only: each gap also holds a request to an httpbin that other suites load at the same time.
        #expect(gaps[2] >= .milliseconds(400))
    }

    @Test("Retry-After from the server is honoured")
    func retryAfter() async throws {
        let log = ExchangeLog()
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.nginx()),
            middleware: [Retry(RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(1), jitter: 0)), log.middleware()]
        )

        _ = try? await client.response(for: Endpoint<EndpointKinds.Public, EmptyResponse>(path: "retry-after"))
        let records = try await log.waitFor(2)

        #expect(records.count == 2)
        #expect(records[1].at - records[0].at >= .milliseconds(950))
    }

    @Test("A POST is not retried by default")
    func postNotRetried() async throws {
        let log = ExchangeLog()
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.httpbin()),
            middleware: [Retry(RetryPolicy(baseDelay: .milliseconds(10))), log.middleware()]
        )
        let endpoint = Endpoint<EndpointKinds.Public, EmptyResponse>(
            method: .post,
            path: "status/503",
            body: JSONBody(["a": 1])
        )

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: endpoint) }

        #expect(error.attempts == 1)
        #expect(try await log.waitFor(1).count == 1)
    }

    @Test("Cancelling during the backoff wait returns promptly")
    func cancelDuringBackoff() async throws {
        let log = ExchangeLog()
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.httpbin()),
            middleware: [Retry(RetryPolicy(baseDelay: .seconds(30), jitter: 0)), log.middleware()]
        )
        let clock = ContinuousClock()

        let task = Task { try await client.response(for: .status(503)) }
        _ = try await log.waitFor(1)
        let cancelledAt = clock.now
        task.cancel()
        let result = await task.result

        let error = try #require(throws: EndpointError.self) { try result.get() }
        #expect(error.kind == .cancelled)
        // Below the 30 s backoff, with room for the cooperative threads of a 2-core machine running every suite at
        // once, which have delayed a 0.3 s wait here by 12 s (see subSecondDeadline).
        #expect(clock.now - cancelledAt < .seconds(25))
    }

    @Test("100 concurrent calls that get 401 cause one refresh and 100 successful replays")
    func singleFlightRefresh() async throws {
        let auth = BearerAuthentication(
            token: { AccessToken("stale") },
            refresh: { _ in
                try await Task.sleep(for: .milliseconds(100))
                return AccessToken("fresh")
            }
        )
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.nginx()),
            transport: URLSessionTransport(configuration: Self.wideConfiguration()),
            middleware: [auth]
        )
        let endpoint = Endpoint<EndpointKinds.Authenticated, Item>(path: "protected")

        let names = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<100 { group.addTask { try await client.response(for: endpoint).name } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }

        #expect(names.count == 100)
        #expect(names.allSatisfy { $0 == "protected" })
        #expect(await auth.refreshCount == 1)
    }

    @Test("A failing refresh fails all 100 calls with the refresh error")
    func failingRefresh() async throws {
        struct Revoked: Error {}
        let auth = BearerAuthentication(token: { AccessToken("stale") }, refresh: { _ in throw Revoked() })
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.nginx()),
            transport: URLSessionTransport(configuration: Self.wideConfiguration()),
            middleware: [auth]
        )
        let endpoint = Endpoint<EndpointKinds.Authenticated, Item>(path: "protected")

        let errors = await withTaskGroup(of: EndpointError?.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    do throws(EndpointError) {
                        _ = try await client.response(for: endpoint)
                        return nil
                    } catch {
                        return error
                    }
                }
            }
            return await group.reduce(into: [EndpointError?]()) { $0.append($1) }
        }

        #expect(errors.count == 100)
        #expect(errors.allSatisfy { $0?.kind == .authenticationFailed && $0?.underlyingError is Revoked })
        #expect(await auth.refreshCount == 1)
    }

    @Test("With a limit of 4, no more than 4 requests are ever in flight, and all complete")
    func throttle() async throws {
        let counter = CountingTransport(base: URLSessionTransport(configuration: Self.wideConfiguration()))
        let throttle = Throttle(maxConcurrent: 4)
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.httpbin()),
            transport: counter,
            middleware: [throttle]
        )
        let endpoint = Endpoint<EndpointKinds.Public, EmptyResponse>(path: "delay/0.2")

        let completed = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<24 {
                group.addTask {
                    _ = try await client.response(for: endpoint)
                    return 1
                }
            }
            return try await group.reduce(0, +)
        }

        #expect(completed == 24)
        #expect(await counter.peak == 4)
    }

    @Test("A POST answered with 303 continues as a GET without its body")
    func seeOther() async throws {
        let client = try TestServers.httpbinClient()
        let endpoint = Endpoint<EndpointKinds.Public, AnythingEcho>(
            method: .post,
            path: "redirect-to",
            query: ["url": "/anything/after", "status_code": 303],
            body: JSONBody(["a": 1])
        )

        let echo = try await client.response(for: endpoint)

        #expect(echo.method == "GET")
        #expect(echo.data == "")
        #expect(echo.headers["Content-Type"] == nil)
    }

    @Test("A 307 or 308 re-sends the original method and body", arguments: [307, 308])
    func temporaryRedirectKeepsBody(status: Int) async throws {
        let client = try TestServers.httpbinClient()
        let endpoint = Endpoint<EndpointKinds.Public, AnythingEcho>(
            method: .put,
            path: "redirect-to",
            query: ["url": "/anything/after", "status_code": status],
            body: JSONBody(["kept": "yes"])
        )

        let echo = try await client.response(for: endpoint)

        #expect(echo.method == "PUT")
        #expect(echo.json == .object(["kept": .string("yes")]))
    }

    @Test("Redirects beyond the limit fail with tooManyRedirects")
    func tooManyRedirects() async throws {
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.httpbin()),
            redirectPolicy: RedirectPolicy(maxRedirects: 2)
        )

        let error = try await #require(throws: EndpointError.self) {
            try await client.response(for: Endpoint<EndpointKinds.Public, EmptyResponse>(path: "redirect/5"))
        }

        #expect(error.kind == .tooManyRedirects)
    }

    @Test("A client with the never policy gets the redirect itself")
    func neverFollow() async throws {
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.httpbin()),
            redirectPolicy: .never
        )

        let response = try await client.rawResponse(
            for: Endpoint<EndpointKinds.Public, EmptyResponse>(path: "redirect/1"),
            using: ()
        )

        #expect(response.statusCode == 302)
        #expect(response.headers[.location] == "/get")
    }

    @Test("A sub-second deadline fails a request the server never answers with timedOut, and closes it")
    func subSecondDeadline() async throws {
        let key = UUID().uuidString
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        var endpoint = Endpoint<EndpointKinds.Public, EmptyResponse>(path: "hold/\(key)")
        endpoint.timeout = .milliseconds(300)
        let clock = ContinuousClock()
        let start = clock.now

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: endpoint) }
        let elapsed = clock.now - start
        print("PipelineIntegrationTests.subSecondDeadline: a 0.3 s deadline ended the call after \(elapsed)")
        let arrived = try await client.response(
            for: Endpoint<EndpointKinds.Public, HoldCount>(path: "count/hold/\(key)")
        )

        #expect(error.kind == .timedOut)
        // The client's own deadline ended the call, not the transport's idle timeout nor the server, which holds
        // the connection for 60 s. How soon is not asserted: with every suite running at once on 2 cores, the
        // cooperative threads are so far behind that a 0.3 s sleep beside this test took 2 s and this call 4–12 s
        // (printed above; alone, 0.315 s). The exact timing is the unit tests' (TestClock).
        #expect(error.message.contains("within the deadline of 300 ms"), "\(error.message)")
        #expect(elapsed < .seconds(45))
        // On such a machine the deadline can also pass before the request is sent; when it was sent, the server
        // sees its connection closed (answered once it has, or after 30 s).
        if arrived.count == 1 {
            let closed = try await client.response(
                for: Endpoint<EndpointKinds.Public, HoldCount>(path: "await/hold-closed/\(key)")
            )
            #expect(closed.count == 1, "the connection was closed, not left to the server")
        }
    }

    static func wideConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionTransport.defaultConfiguration()
        configuration.httpMaximumConnectionsPerHost = 128
        return configuration
    }
}

actor TokenBox {
    var value = "none"
    func set(_ new: String) { value = new }
}

/// Sends `Authorization: Bearer <box value>` unless the box is empty.
struct BearerFromBox: Middleware {
    let box: TokenBox
    func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext) async throws
        -> TransportResponse
    {
        var request = request
        let token = await box.value
        if token != "none" { request.headers[.authorization] = "Bearer \(token)" }
        return try await next(request, context: context)
    }
}

/// Counts requests in flight at the transport.
actor CountingTransport: Transport {
    let base: any Transport
    private(set) var current = 0
    private(set) var peak = 0
    private(set) var total = 0

    init(base: any Transport) { self.base = base }

    func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse {
        current += 1
        total += 1
        peak = max(peak, current)
        defer { current -= 1 }
        return try await base.send(request, options: options)
    }
}
