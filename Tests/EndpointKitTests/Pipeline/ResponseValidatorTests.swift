import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct APIError: Error, Decodable, Sendable, Equatable {
    var code: Int
    var message: String
}

@Suite(.timeLimit(.minutes(1))) struct ResponseValidatorTests {
    @Test("An error envelope in a 200 body becomes a typed server error")
    func errorEnvelope() async throws {
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: StubTransport(replies: [.json(#"{"error": {"code": 42, "message": "quota"}}"#)]),
            validators: [.errorEnvelope(APIError.self)]
        )

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: .item(1)) }

        #expect(error.kind == .responseRejected)
        #expect(error.serverError(as: APIError.self) == APIError(code: 42, message: "quota"))
        #expect(error.statusCode == 200)
    }

    @Test("Bodies without the envelope pass the error validator")
    func noEnvelope() async throws {
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: StubTransport(replies: [.json(#"{"id": 1, "name": "a"}"#)]),
            validators: [.errorEnvelope(APIError.self)]
        )

        #expect(try await client.response(for: .item(1)).name == "a")
    }

    @Test("A validator can refresh state by running another request, then replay")
    func refreshThenReplay() async throws {
        let transport = StubTransport { request in
            if request.url.path == "/v1/session" { return .json(#"{"id": 0, "name": "renewed"}"#) }
            return request.headers["X-Session"] == "renewed"
                ? .json(#"{"id": 1, "name": "a"}"#) : .status(419)
        }
        let session = SessionBox()
        let base = EndpointClient(environment: Fixture.environment, transport: transport)
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: transport,
            middleware: [SessionHeader(box: session)],
            validators: [
                ResponseValidator { response, _ in
                    guard response.statusCode == 419 else { return .accept }
                    return .retry(
                        .afterRunning {
                            let renewed = try await base.response(
                                for: Endpoint<EndpointKinds.Public, Item>(path: "session")
                            )
                            await session.set(renewed.name)
                        }
                    )
                }
            ]
        )

        let item = try await client.response(for: .item(1))

        #expect(item.name == "a")
        #expect(await transport.requests.map { $0.url?.path } == ["/v1/items/1", "/v1/session", "/v1/items/1"])
    }

    @Test("Validators that keep asking for retries are stopped")
    func endlessRetries() async throws {
        let transport = StubTransport { _ in .json("{}") }
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: transport,
            validators: [ResponseValidator { _, _ in .retry(.immediately) }]
        )

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: .item(1)) }

        #expect(error.kind == .responseRejected)
        #expect(await transport.requests.count == Pipeline.maxValidatorRetries + 1)
    }

    @Test("A delayed retry waits on the client's clock, until that clock has moved on")
    func delayedRetry() async throws {
        let clock = TestClock()
        let transport = StubTransport(replies: [.status(202), .json(#"{"id": 1, "name": "done"}"#)])
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: transport,
            validators: [
                ResponseValidator { response, _ in response.statusCode == 202 ? .retry(.after(.seconds(2))) : .accept }
            ],
            clock: clock
        )
        var endpoint = Endpoint.item(1)
        endpoint.timeout = .seconds(1_000_000_000)  // no deadline timer: the only sleeper is the validator's delay

        let call = Task { try await client.response(for: endpoint) }
        try await clock.waitForSleepers(1)
        let sentBeforeTheDelay = await transport.requests.count
        clock.advance(by: .seconds(2))
        let item = try await call.value

        #expect(sentBeforeTheDelay == 1)
        #expect(item.name == "done")
        #expect(clock.sleeps == [.seconds(2)])
    }
}

private actor SessionBox {
    var value = "none"
    func set(_ new: String) { value = new }
}

private struct SessionHeader: Middleware {
    let box: SessionBox
    func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext) async throws
        -> TransportResponse
    {
        var request = request
        request.headers["X-Session"] = await box.value
        return try await next(request, context: context)
    }
}
