import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(1))) struct BearerAuthenticationTests {
    static let profile = Endpoint<EndpointKinds.Authenticated, Item>(path: "me")

    /// A server that accepts only `Bearer <valid>` and answers 401 otherwise; with `rejectingTogether`, it
    /// holds the rejected requests until that many have arrived, so that they are rejected all at once whichever
    /// task started first, not by the luck of timing.
    static func server(accepting valid: String, rejectingTogether count: Int = 1) -> StubTransport {
        let rejected = Locked(0)
        let allArrived = Gate()
        return StubTransport { request in
            guard request.headers[.authorization] == "Bearer \(valid)" else {
                if rejected.withLock({ value -> Int in
                    value += 1
                    return value
                }) >= count {
                    allArrived.open()
                }
                await allArrived.wait()
                return .status(401)
            }
            return .json(#"{"id": 1, "name": "me"}"#)
        }
    }

    @Test("100 concurrent calls rejected with 401 share one refresh and all succeed on replay")
    func singleFlight() async throws {
        let auth = BearerAuthentication(token: { AccessToken("stale") }, refresh: { _ in AccessToken("fresh") })
        let transport = Self.server(accepting: "fresh", rejectingTogether: 100)
        let client = EndpointClient(environment: Fixture.environment, transport: transport, middleware: [auth])

        let results = await withTaskGroup(of: Result<Item, EndpointError>.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    do throws(EndpointError) { return .success(try await client.response(for: Self.profile)) } catch {
                        return .failure(error)
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }

        #expect(results.count == 100)
        #expect(results.allSatisfy { (try? $0.get())?.name == "me" })
        #expect(await auth.refreshCount == 1)
        #expect(await transport.requests.count == 200)
    }

    @Test("A failing refresh fails every waiting call with authenticationFailed")
    func failingRefresh() async throws {
        struct Revoked: Error {}
        let auth = BearerAuthentication(token: { AccessToken("stale") }, refresh: { _ in throw Revoked() })
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: Self.server(accepting: "fresh", rejectingTogether: 100),
            middleware: [auth]
        )

        let errors = await withTaskGroup(of: EndpointError?.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    do throws(EndpointError) {
                        _ = try await client.response(for: Self.profile)
                        return nil
                    } catch {
                        return error
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }

        #expect(errors.count == 100)
        #expect(errors.allSatisfy { $0?.kind == .authenticationFailed && $0?.underlyingError is Revoked })
        #expect(await auth.refreshCount == 1)
    }

    @Test("A refresh that returns the rejected token fails instead of looping")
    func sameToken() async throws {
        let auth = BearerAuthentication(token: { AccessToken("stale") }, refresh: { $0 })
        let transport = Self.server(accepting: "fresh")
        let client = EndpointClient(environment: Fixture.environment, transport: transport, middleware: [auth])

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: Self.profile) }

        #expect(error.kind == .authenticationFailed)
        #expect(await transport.requests.count == 1)
    }

    @Test(
        "A request is refreshed at most once: a second 401 fails as authenticationFailed with its status and counts both sends"
    )
    func secondRejection() async throws {
        let auth = BearerAuthentication(token: { AccessToken("a") }, refresh: { _ in AccessToken("b") })
        let transport = Self.server(accepting: "nobody")
        let client = EndpointClient(environment: Fixture.environment, transport: transport, middleware: [auth])

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: Self.profile) }

        #expect(error.kind == .authenticationFailed)
        #expect(error.statusCode == 401)
        #expect(error.attempts == 2)
        #expect(await transport.requests.count == 2)
    }

    @Test("Public endpoints pass through without a token")
    func publicUntouched() async throws {
        let auth = BearerAuthentication(token: { AccessToken("t") }, refresh: { _ in AccessToken("u") })
        let transport = StubTransport(replies: [.json("[]")])
        let client = EndpointClient(environment: Fixture.environment, transport: transport, middleware: [auth])

        _ = try await client.response(for: .featuredItems)

        #expect(await transport.requests.first?.value(forHTTPHeaderField: "Authorization") == nil)
    }

    @Test("Releasing the client and its middleware while the first token loads cancels the load: nothing runs on")
    func releasedMiddlewareCancelsTokenLoad() async throws {
        let started = Gate()
        let cancelled = Gate()
        let transport = StubTransport(replies: [.json(#"{"id": 1, "name": "me"}"#)])
        var client: EndpointClient? = EndpointClient(
            environment: Fixture.environment,
            transport: transport,
            middleware: [
                BearerAuthentication(
                    token: {
                        started.open()
                        await withTaskCancellationHandler {
                            await Gate().wait()
                        } onCancel: {
                            cancelled.open()
                        }
                        return AccessToken("late")
                    },
                    refresh: { $0 }
                )
            ]
        )
        let call = Task { [client] in try await client?.response(for: Self.profile) }
        await started.wait()

        call.cancel()
        _ = await call.result
        client = nil

        await cancelled.wait()
        #expect(await transport.requests.isEmpty)
    }
}
