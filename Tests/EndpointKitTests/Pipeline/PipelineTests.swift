import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Records every event a client reports.
final class EventLog: ExchangeObserver {
    private let events = Locked([ExchangeEvent]())

    func observe(_ event: ExchangeEvent) { events.withLock { $0.append(event) } }

    var all: [ExchangeEvent] { events.withLock { $0 } }

    var records: [ExchangeRecord] {
        events.withLock { events in
            events.compactMap { event in
                if case .exchangeCompleted(let record) = event { return record }
                return nil
            }
        }
    }

    var attemptsStarted: [Int] {
        events.withLock { events in
            events.compactMap { event in
                if case .attemptStarted(let attempt, _) = event { return attempt }
                return nil
            }
        }
    }
}

/// Writes whatever header it is given, as a careless or hostile middleware would.
private struct WritesHeader: Middleware {
    var name: HTTPHeaders.Name
    var value: String
    func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext) async throws
        -> TransportResponse
    {
        var request = request
        request.headers[name] = value
        return try await next(request, context: context)
    }
}

@Suite(.timeLimit(.minutes(1)))
struct PipelineTests {
    static let profile = Endpoint<EndpointKinds.Authenticated, Item>(path: "me")

    @Test("An Authenticated endpoint redirected to another origin succeeds, and the second hop carries no credentials")
    func authenticatedCrossOriginRedirect() async throws {
        let transport = StubTransport { request in
            if request.url.host == "api.test" {
                return .response(status: 302, headers: [.location: "https://cdn.test/me"])
            }
            return .json(#"{"id": 1, "name": "me"}"#)
        }
        let auth = BearerAuthentication(token: { AccessToken("s3cret") }, refresh: { $0 })
        let client = EndpointClient(environment: Fixture.environment, transport: transport, middleware: [auth])

        let item = try await client.response(for: Self.profile)

        let sent = await transport.transportRequests
        #expect(item == Item(id: 1, name: "me"))
        #expect(sent.map(\.url.host) == ["api.test", "cdn.test"])
        #expect(sent[0].headers[.authorization] == "Bearer s3cret")
        #expect(sent[1].headers[.authorization] == nil)
    }

    @Test(
        "A header a middleware writes with CR, LF or NUL never reaches the transport",
        arguments: ["a\r\nX-Injected: 1", "a\nb", "a\0b"]
    )
    func middlewareHeaderInjection(value: String) async throws {
        let transport = StubTransport(replies: [.json("[]")])
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: transport,
            middleware: [WritesHeader(name: "X-Trace", value: value)]
        )

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: .featuredItems) }

        #expect(error.kind == .invalidRequest)
        #expect(await transport.transportRequests.isEmpty)
        #expect(!error.description.contains("X-Injected: 1"))
    }

    @Test("A middleware cannot set a header the transport manages")
    func middlewareManagedHeader() async throws {
        let transport = StubTransport(replies: [.json("[]")])
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: transport,
            middleware: [WritesHeader(name: .contentLength, value: "0")]
        )

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: .featuredItems) }

        #expect(error.kind == .invalidRequest)
        #expect(await transport.transportRequests.isEmpty)
    }

    @Test("Data and String responses are the body as it is; String follows the response charset")
    func rawBodies() async throws {
        let binary = Data([0x00, 0xFF, 0x10, 0x89])
        let latin1 = Data([0x63, 0x61, 0x66, 0xE9])  // "café" in ISO-8859-1
        let transport = StubTransport(replies: [
            .response(headers: [.contentType: "application/octet-stream"], body: binary),
            .response(headers: [.contentType: "text/plain; charset=iso-8859-1"], body: latin1),
            .response(headers: [.contentType: "text/plain"], body: Data("naïve".utf8)),
        ])
        let client = EndpointClient(environment: Fixture.environment, transport: transport, envelope: .networkResponse)

        let data = try await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "blob"))
        let text = try await client.response(for: Endpoint<EndpointKinds.Public, String>(path: "latin"))
        let utf8 = try await client.response(for: Endpoint<EndpointKinds.Public, String>(path: "utf8"))

        #expect(data == binary)
        #expect(text == "café")
        #expect(utf8 == "naïve")
    }

    @Test("One deadline covers every redirect hop of an attempt")
    func deadlineCoversAllHops() async throws {
        let clock = TestClock()
        let firstHop = Gate()
        let secondHopStarted = Gate()
        let transport = StubTransport { request in
            if request.url.path == "/v1/items/1" {
                await firstHop.wait()
                return .response(status: 302, headers: [.location: "/v1/elsewhere"])
            }
            secondHopStarted.open()
            await Gate().wait()  // never opened: only the deadline can end this hop
            throw CancellationError()
        }
        var defaults = RequestDefaults()
        defaults.timeout = .seconds(1)
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: transport,
            defaults: defaults,
            clock: clock
        )

        let call = Task { () async throws(EndpointError) -> Item in try await client.response(for: .item(1)) }
        try await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(600))
        firstHop.open()
        await secondHopStarted.wait()
        clock.advance(by: .milliseconds(600))
        let result = await call.result

        if case .failure(let error) = result {
            #expect((error as? EndpointError)?.kind == .timedOut)
        } else {
            Issue.record("the call returned \(result) instead of timing out")
        }
    }

    @Test("On the system clock, a transport that never answers is stopped by the shared deadline timer as timedOut")
    func sharedTimerDeadline() async throws {
        let transport = StubTransport { _ in
            await Gate().wait()  // never opened: only the deadline can end this
            throw CancellationError()
        }
        var defaults = RequestDefaults()
        defaults.timeout = .milliseconds(50)
        let client = EndpointClient(environment: Fixture.environment, transport: transport, defaults: defaults)

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: .item(1)) }

        #expect(error.kind == .timedOut)
        #expect(error.attempts == 1)
    }

    @Test("A validator's send-again is an attempt like a retry's: counted, observed and in the error")
    func validatorRetriesCountAsAttempts() async throws {
        let log = EventLog()
        let transport = StubTransport(replies: [
            .json("{}", status: 419), .json("{}", status: 419), .json("{}", status: 500),
        ])
        let again = ResponseValidator { response, _ in response.statusCode == 419 ? .retry(.immediately) : .accept }
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: transport,
            validators: [again],
            observers: [log]
        )

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: .item(1)) }

        #expect(error.kind == .unacceptableStatus)
        #expect(error.attempts == 3)
        #expect(log.attemptsStarted == [1, 2, 3])
        #expect(log.records.map(\.attempt) == [1, 2, 3])
    }

    @Test("ExchangeLogging listed as a middleware sees every hop and every attempt with its true number")
    func loggingSeesHopsAndReplays() async throws {
        let records = Locked([ExchangeRecord]())
        let logging = ExchangeLogging { record in records.withLock { $0.append(record) } }
        let transport = StubTransport { request in
            if request.url.path == "/v1/me" { return .response(status: 307, headers: [.location: "/v1/me2"]) }
            guard request.headers[.authorization] == "Bearer fresh" else { return .status(401) }
            return .json(#"{"id": 1, "name": "me"}"#)
        }
        let auth = BearerAuthentication(token: { AccessToken("stale") }, refresh: { _ in AccessToken("fresh") })
        // Logging listed first, outside authentication: as an observer its position does not matter.
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: transport,
            middleware: [logging, auth]
        )

        _ = try await client.response(for: Self.profile)

        let logged = records.withLock { $0 }
        #expect(logged.map(\.attempt) == [1, 1, 2, 2])
        #expect(logged.map(\.hop) == [0, 1, 0, 1])
        #expect(logged.map(\.statusCode) == [307, 401, 307, 200])
        #expect(logged.allSatisfy { $0.requestHeaders[.authorization] != "Bearer stale" })
    }

    @Test("A client's own secret header is redacted in logs, errors and cURL, and stripped on a cross-origin redirect")
    func oneSecretList() async throws {
        let log = EventLog()
        let transport = StubTransport { request in
            if request.url.host == "api.test" {
                return .response(status: 302, headers: [.location: "https://other.test/x?X-Amz-Signature=abc123"])
            }
            return .status(500)
        }
        var defaults = RequestDefaults()
        defaults.sensitiveHeaders = ["X-Tenant-Secret"]
        var endpoint = Endpoint<EndpointKinds.Public, Item>(path: "items/1")
        endpoint.headers["X-Tenant-Secret"] = "tenant-shh"
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: transport,
            defaults: defaults,
            observers: [log]
        )

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: endpoint) }

        let sent = await transport.transportRequests
        #expect(sent[1].headers["X-Tenant-Secret"] == nil)
        #expect(!"\(error)".contains("tenant-shh"))
        #expect(error.curlCommand?.contains("tenant-shh") == false)
        #expect(log.records.allSatisfy { !"\($0.requestHeaders)".contains("tenant-shh") })
        #expect(log.records.allSatisfy { !$0.redactedURL.contains("abc123") })
        #expect(
            log.records.allSatisfy { record in
                var dumped = ""
                dump(record, to: &dumped)
                return !dumped.contains("tenant-shh") && !dumped.contains("abc123")
            }
        )
        #expect(error.request?.redactedURL.contains("abc123") == false)
    }

    @Test(
        "Signed-URL and token query values are redacted in every printed URL",
        arguments: [
            "X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token", "sig", "signature", "token",
            "access_token", "api_key", "key", "auth_token", "private_token", "sessionToken", "jwt",
        ]
    )
    func signedQueryRedaction(name: String) throws {
        let url = try #require(URL(string: "https://s3.test/b/o?\(name)=TOPSECRET&x=1"))

        let shown = Redaction.redactedString(for: url)

        #expect(!shown.contains("TOPSECRET"))
        #expect(shown.contains("x=1"))
    }

    @Test("A request summary redacts when read, and neither its description nor dump shows a secret")
    func lazySummaryRedacts() throws {
        let url = try #require(URL(string: "https://api.test/v1/a?access_token=s3cret&x=1"))
        let summary = Redactor().summary(of: TransportRequest(url: url))

        var dumped = ""
        dump(summary, to: &dumped)

        #expect(!summary.description.contains("s3cret"))
        #expect(!dumped.contains("s3cret"))
        #expect(summary.redactedURL.contains("x=1"))
        #expect(summary == RequestSummary(method: .get, redactedURL: summary.redactedURL))
    }

    @Test("A call cancelled while a token refresh hangs is released at once; the refresh goes on for others")
    func cancelWhileRefreshing() async throws {
        let refreshStarted = Gate()
        let refreshMayFinish = Gate()
        let auth = BearerAuthentication(
            token: { AccessToken("stale") },
            refresh: { _ in
                refreshStarted.open()
                await refreshMayFinish.wait()
                return AccessToken("fresh")
            }
        )
        let transport = StubTransport { request in
            request.headers[.authorization] == "Bearer fresh" ? .json(#"{"id": 1, "name": "me"}"#) : .status(401)
        }
        let client = EndpointClient(environment: Fixture.environment, transport: transport, middleware: [auth])

        let cancelled = Task { () async throws(EndpointError) -> Item in try await client.response(for: Self.profile) }
        await refreshStarted.wait()
        cancelled.cancel()
        let cancelledResult = await cancelled.result
        let patient = Task { () async throws(EndpointError) -> Item in try await client.response(for: Self.profile) }
        refreshMayFinish.open()
        let patientResult = await patient.result

        if case .failure(let error) = cancelledResult {
            #expect((error as? EndpointError)?.kind == .cancelled)
        } else {
            Issue.record("the cancelled call returned \(cancelledResult) instead of failing")
        }
        #expect(try patientResult.get() == Item(id: 1, name: "me"))
        #expect(await auth.refreshCount == 1)
    }

    @Test("A body cut short inside an attempt is retried for a GET, as a transient failure")
    func truncatedBodyIsRetried() async throws {
        let cut = AsyncThrowingStream<Data, any Error> { continuation in
            continuation.yield(Data(#"{"id": 1,"#.utf8))
            continuation.finish(throwing: URLSessionTransport.truncated(received: 9, announced: 24))
        }
        let transport = StubTransport(replies: [
            .response(TransportResponse(statusCode: 200, body: ResponseBody(length: 24, chunks: cut))),
            .json(#"{"id": 1, "name": "whole"}"#),
        ])
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: transport,
            middleware: [Retry(RetryPolicy(baseDelay: .zero, jitter: 0))]
        )

        let item = try await client.response(for: .item(1))

        #expect(item == Item(id: 1, name: "whole"))
        #expect(await transport.transportRequests.count == 2)
    }

    @Test("A body larger than the endpoint's limit fails with responseTooLarge before it is read, when announced")
    func announcedTooLarge() async throws {
        let neverRead = AsyncThrowingStream<Data, any Error> { continuation in
            continuation.yield(Data(count: 10))
        }
        let transport = StubTransport(replies: [
            .response(TransportResponse(statusCode: 200, body: ResponseBody(length: 2_000, chunks: neverRead)))
        ])
        let client = EndpointClient(environment: Fixture.environment, transport: transport)
        var endpoint = Endpoint<EndpointKinds.Public, Data>(path: "blob")
        endpoint.maximumResponseSize = 1_000

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: endpoint) }

        #expect(error.kind == .responseTooLarge)
    }
}
