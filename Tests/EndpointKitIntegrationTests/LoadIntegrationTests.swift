import EndpointKit
import EndpointKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

private struct EchoTally: Decodable { var count: Int }

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

    @Test(
        "1,000 POSTs of 16 B to 32 KiB, 64 in flight, are each echoed byte for byte and reach the server once each"
    )
    func thousandPosts() async throws {
        let seed = ProcessInfo.processInfo.environment["EK_LOAD_SEED"].flatMap { UInt64($0) } ?? 20_261_127
        print("LoadIntegrationTests.thousandPosts seed \(seed) (rerun with EK_LOAD_SEED=\(seed))")
        var generator = SeededGenerator(seed: seed)
        let bodies = (0..<1_000).map { index in
            let size = Int.random(in: 16...32 * 1024, using: &generator)
            return Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) })
        }
        let key = UUID().uuidString
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.fault()),
            transport: URLSessionTransport(configuration: Self.sixtyFourPerHost()),
            middleware: [Retry(), Throttle(maxConcurrent: 64)]
        )
        let started = ContinuousClock.now

        let results = await withTaskGroup(of: (Int, Result<Data, EndpointError>).self) { group in
            for (index, body) in bodies.enumerated() {
                group.addTask {
                    // Answered as Python's http.server answers: fresh connections sent through one shared session
                    // stalled against it until their timeout (6 to 20 of 1,000).
                    var post = Endpoint<EndpointKinds.Public, Data>(
                        method: .post,
                        path: "echo/\(key)",
                        queryItems: [URLQueryItem(name: "quiet-close", value: "1")],
                        body: DataBody(body)
                    )
                    post.timeout = .seconds(30)
                    do throws(EndpointError) {
                        return (index, .success(try await client.response(for: post)))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            return await group.reduce(into: [(Int, Result<Data, EndpointError>)]()) { $0.append($1) }
        }
        let elapsed = ContinuousClock.now - started
        let arrivals = try await client.response(
            for: Endpoint<EndpointKinds.Public, EchoTally>(path: "count/echo/\(key)")
        )
        .count
        print("LoadIntegrationTests.thousandPosts: 1,000 POSTs in \(elapsed)")

        let failures = results.compactMap { _, result in if case .failure(let error) = result { error } else { nil } }
        #expect(failures.isEmpty, "\(failures.count) failed: \(failures.prefix(3).map(\.description))")
        #expect(results.allSatisfy { index, result in (try? result.get()) == bodies[index] })
        #expect(arrivals == 1_000, "the server received \(arrivals) POSTs for 1,000 calls")
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

    /// 64 connections per host, as many as calls in flight: the set-up in which fresh connections once stalled.
    private static func sixtyFourPerHost() -> URLSessionConfiguration {
        let configuration = URLSessionTransport.defaultConfiguration()
        configuration.httpMaximumConnectionsPerHost = 64
        return configuration
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
