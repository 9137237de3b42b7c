import EndpointKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(1)), .serialized)
struct LoadIntegrationTests {
    @Test("1,000 requests through the full chain with 64 in flight all succeed with their own bodies")
    func thousandRequests() async throws {
        let counter = CountingTransport(
            base: URLSessionTransport(configuration: PipelineIntegrationTests.wideConfiguration())
        )
        let throttle = Throttle(maxConcurrent: 64)
        let log = ExchangeLog()
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.httpbin(), headers: ["X-Load": "1"]),
            transport: counter,
            middleware: [Retry(RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(50))), throttle, log.middleware()],
            validators: [.errorEnvelope(APIError.self)]
        )

        let results = await withTaskGroup(of: (Int, Result<AnythingEcho, EndpointError>).self) { group in
            for index in 0..<1_000 {
                group.addTask {
                    let endpoint = Endpoint<EndpointKinds.Public, AnythingEcho>.anything(
                        .get,
                        segment: "load-\(index)",
                        query: [URLQueryItem(name: "i", value: String(index))]
                    )
                    do throws(EndpointError) {
                        return (index, .success(try await client.response(for: endpoint)))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            return await group.reduce(into: [(Int, Result<AnythingEcho, EndpointError>)]()) { $0.append($1) }
        }

        let failures = results.filter { if case .failure = $0.1 { true } else { false } }
        #expect(failures.isEmpty, "\(failures.count) failed, first: \(String(describing: failures.first))")
        #expect(results.count == 1_000)
        for (index, result) in results {
            let echo = try result.get()
            #expect(echo.args["i"]?.text == String(index))
            #expect(echo.headers["X-Load"] == "1")
        }
        #expect(throttle.peakConcurrency <= 64)
        #expect(await counter.peak <= 64)
        #expect(log.records.count == 1_000 + log.records.filter { $0.record.attempt > 1 }.count)
        #expect(throttle.inFlight == 0 && throttle.waiting == 0)
    }

    @Test("1,000 requests in flight, cancelled together, all end promptly as cancelled and leave nothing behind")
    func thousandCancelled() async throws {
        let transport = URLSessionTransport(configuration: PipelineIntegrationTests.wideConfiguration())
        let throttle = Throttle(maxConcurrent: 64)
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.httpbin()),
            transport: transport,
            middleware: [Retry(), throttle]
        )
        // The server would answer after 10 s: anything near that means cancellation did not stop the calls.
        let slow = Endpoint<EndpointKinds.Public, EmptyResponse>.delay(seconds: 10)
        let clock = ContinuousClock()

        let tasks = (0..<1_000).map { _ in Task { try await client.response(for: slow) } }
        for _ in 0..<500 where throttle.inFlight < 64 || throttle.waiting < 1_000 - 64 {
            try await Task.sleep(for: .milliseconds(10))
        }
        let inFlightBeforeCancel = throttle.inFlight
        let cancelledAt = clock.now
        for task in tasks { task.cancel() }
        var kinds: [EndpointError.Kind] = []
        for task in tasks {
            let result = await task.result
            kinds.append((try? result.get()).map { _ in EndpointError.Kind("succeeded") } ?? Self.kind(of: result))
        }
        let elapsed = clock.now - cancelledAt

        #expect(inFlightBeforeCancel == 64)
        #expect(kinds.count == 1_000)
        #expect(kinds.allSatisfy { $0 == .cancelled })
        #expect(elapsed < .seconds(5), "cancelling took \(elapsed)")
        #expect(throttle.inFlight == 0)
        #expect(throttle.waiting == 0)
        var remaining = await Self.runningTasks(in: transport.session)
        for _ in 0..<100 where remaining > 0 {
            try await Task.sleep(for: .milliseconds(20))
            remaining = await Self.runningTasks(in: transport.session)
        }
        #expect(remaining == 0, "\(remaining) URLSession tasks still running")
    }

    private static func runningTasks(in session: URLSession) async -> Int {
        await withCheckedContinuation { continuation in
            session.getAllTasks { tasks in
                continuation.resume(returning: tasks.filter { $0.state == .running }.count)
            }
        }
    }

    private static func kind(of result: Result<EmptyResponse, any Error>) -> EndpointError.Kind {
        guard case .failure(let error) = result else { return EndpointError.Kind("succeeded") }
        return (error as? EndpointError)?.kind ?? EndpointError.Kind("untyped: \(error)")
    }
}
