import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Records what a client tells its instruments, and stamps each request it sees.
private final class Recorder: Middleware, HopInstrument, @unchecked Sendable {
    struct Seen: Equatable {
        var url: String
        var attempt: Int
        var hop: Int
        var resendCount: Int
        var template: String?
    }
    let seen = Locked([Seen]())
    let heads = Locked([Int]())
    let ended = Locked([ExchangeRecord]())
    let cache = Locked([ResponseSource]())

    func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext) async throws
        -> TransportResponse
    {
        try await next(request, context: context)
    }

    func willSend(_ request: inout TransportRequest, _ exchange: ExchangeStart) -> (any HopTracker)? {
        request.headers["X-Trace"] = "hop-\(exchange.resendCount)"
        seen.withLock {
            $0.append(
                Seen(
                    url: exchange.request.redactedURL,
                    attempt: exchange.attempt,
                    hop: exchange.hop,
                    resendCount: exchange.resendCount,
                    template: exchange.context.urlTemplate
                )
            )
        }
        return Tracker(owner: self)
    }

    func cacheAnswered(_ source: ResponseSource, for request: RequestSummary, context: RequestContext) {
        cache.withLock { $0.append(source) }
    }

    struct Tracker: HopTracker {
        let owner: Recorder
        func headReceived(statusCode: Int, headers: HTTPHeaders) { owner.heads.withLock { $0.append(statusCode) } }
        func ended(_ record: ExchangeRecord) { owner.ended.withLock { $0.append(record) } }
    }
}

@Suite(.timeLimit(.minutes(1))) struct HopInstrumentTests {
    @Test("Every request on the wire is instrumented: a retry and a redirect hop each count one more resend")
    func everyPhysicalRequest() async throws {
        let recorder = Recorder()
        let transport = StubTransport(replies: [
            .status(503),
            .response(status: 302, headers: ["Location": "https://api.test/v1/items/9"]),
            .json(#"{"id": 9, "name": "nine"}"#),
        ])
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: transport,
            middleware: [recorder, Retry(RetryPolicy(baseDelay: .zero), clock: ImmediateClock())]
        )

        _ = try await client.response(for: .item(7))

        let seen = recorder.seen.withLock { $0 }
        #expect(seen.map(\.resendCount) == [0, 1, 2])
        #expect(seen.map(\.attempt) == [1, 2, 2])
        #expect(seen.map(\.hop) == [0, 0, 1])
        #expect(seen.map(\.template) == ["/v1/items/{id}", "/v1/items/{id}", "/v1/items/{id}"])
        #expect(recorder.heads.withLock { $0 } == [503, 302, 200])
        #expect(recorder.ended.withLock { $0 }.map(\.statusCode) == [503, 302, 200])
        let sent = await transport.transportRequests.map { $0.headers["X-Trace"] }
        #expect(sent == ["hop-0", "hop-1", "hop-2"])
    }

    @Test("A header an instrument adds is checked like any other: a line break is refused, never sent")
    func checked() async throws {
        struct Injector: Middleware, HopInstrument {
            func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext)
                async throws -> TransportResponse
            { try await next(request, context: context) }
            func willSend(_ request: inout TransportRequest, _ exchange: ExchangeStart) -> (any HopTracker)? {
                request.headers["X-Trace"] = "a\r\nX-Evil: 1"
                return nil
            }
            func cacheAnswered(_ source: ResponseSource, for request: RequestSummary, context: RequestContext) {}
        }
        let transport = StubTransport(replies: [.json(#"{"id": 1, "name": "one"}"#)])
        let client = EndpointClient(environment: Fixture.environment, transport: transport, middleware: [Injector()])

        let error = await #expect(throws: EndpointError.self) { try await client.response(for: .item(1)) }

        #expect(error?.kind == .invalidRequest)
        #expect(await transport.transportRequests.isEmpty)
    }

    @Test("A response the cache serves is no request: the instrument hears of the cache, tracks nothing")
    func cacheHit() async throws {
        let recorder = Recorder()
        let transport = StubTransport(replies: [
            .response(headers: ["Cache-Control": "max-age=60"], body: Data(#"{"id": 1, "name": "a"}"#.utf8))
        ])
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: transport,
            middleware: [recorder]
        )

        _ = try await client.response(for: .item(1))
        _ = try await client.response(for: .item(1))

        #expect(recorder.seen.withLock { $0 }.count == 1)
        #expect(recorder.ended.withLock { $0 }.count == 1)
        #expect(recorder.cache.withLock { $0 } == [.network, .cache])
    }

    @Test("An endpoint with an absolute URL has no template; the context of a plain middleware test has none either")
    func noTemplate() async throws {
        let recorder = Recorder()
        let transport = StubTransport(replies: [.json(#"{"id": 1, "name": "one"}"#)])
        let client = EndpointClient(environment: Fixture.environment, transport: transport, middleware: [recorder])
        var endpoint = Endpoint<EndpointKinds.Public, Item>.item(1)
        endpoint.url = URL(string: "https://api.test/v1/items/1?page=2")

        _ = try await client.response(for: endpoint)

        #expect(recorder.seen.withLock { $0 }.map(\.template) == [nil])
        #expect(RequestContext().urlTemplate == nil)
    }
}
