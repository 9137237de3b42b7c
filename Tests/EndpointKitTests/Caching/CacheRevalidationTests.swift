import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Stamps every request with the number it is, as a request-ID middleware would.
private struct RequestStamp: Middleware {
    let counter = Locked(0)

    func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext) async throws
        -> TransportResponse
    {
        var request = request
        let number = counter.withLock { count in
            count += 1
            return count
        }
        request.headers["X-Request-ID"] = "r\(number)"
        return try await next(request, context: context)
    }
}

/// Holds the third request it sees (after a call and the call that is served stale) until cancelled, saying when it holds and when it was cancelled.
private struct HoldThird: Middleware {
    let seen = Locked(0)
    let holding = Gate()
    let cancelled = Gate()

    func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext) async throws
        -> TransportResponse
    {
        let number = seen.withLock { count in
            count += 1
            return count
        }
        if number == 3 {
            holding.open()
            await withTaskCancellationHandler {
                await Gate().wait()
            } onCancel: {
                cancelled.open()
            }
            try Task.checkCancellation()
        }
        return try await next(request, context: context)
    }
}

/// A background revalidation (`stale-while-revalidate`) is the call made again along the foreground's path, in a
/// task the client owns.
@Suite(.timeLimit(.minutes(1))) struct CacheRevalidationTests {
    static let staleWhileRevalidate: HTTPHeaders = ["Cache-Control": "max-age=10, stale-while-revalidate=60"]

    @Test("A background revalidation goes through the middleware and is recorded for the observers")
    func throughMiddlewareAndObservers() async throws {
        let harness = CacheHarness(middleware: [RequestStamp()]) { _, number in
            .item(1, number == 1 ? "old" : "new", headers: Self.staleWhileRevalidate)
        }
        var stores = harness.stores.makeAsyncIterator()
        _ = try await harness.client.response(for: .item(1))
        await stores.next()
        harness.wall.advance(20)

        let stale = try await harness.client.exchange(for: .item(1))
        await stores.next()

        #expect(stale.value.name == "old" && stale.source == .cache)
        let sent = await harness.transport.transportRequests
        #expect(sent.map { $0.headers["X-Request-ID"] } == ["r1", "r3"], "the revalidation is stamped like any call")
        #expect(harness.events.records.filter { $0.source == .network }.count == 2, "it has a record of its own")
        #expect(try await harness.client.response(for: .item(1)).name == "new")
    }

    @Test("Releasing the client while its background revalidation waits in a middleware cancels it: nothing is sent")
    func releasedClientCancelsRevalidation() async throws {
        let hold = HoldThird()
        let transport = StubTransport { _ in .item(1, "old", headers: Self.staleWhileRevalidate) }
        let wall = WallClock()
        var client: EndpointClient? = EndpointClient(
            environment: Fixture.environment,
            transport: transport,
            middleware: [hold],
            cache: HTTPCache(date: { wall.date })
        )
        _ = try await client?.response(for: Endpoint<EndpointKinds.Public, Item>.item(1))
        wall.advance(20)
        let stale = try await client?.exchange(for: Endpoint<EndpointKinds.Public, Item>.item(1))
        await hold.holding.wait()

        client = nil

        await hold.cancelled.wait()
        #expect(stale?.source == .cache)
        #expect(await transport.transportRequests.count == 1)
    }
}
