import EndpointKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

private struct Count: Decodable { var count: Int }

extension Endpoint where Kind == EndpointKinds.Public, Response == Count {
    /// How many requests for `kind/key` reached the fault server.
    static func arrivals(_ kind: String, _ key: String) -> Self { Endpoint(path: "count/\(kind)/\(key)") }
}

@Suite(.timeLimit(.minutes(1)))
struct FaultIntegrationTests {
    @Test("A GET whose body the server cuts short (FIN before Content-Length) is retried and then arrives whole")
    func truncatedBodyRetried() async throws {
        let key = UUID().uuidString
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.fault()),
            middleware: [Retry(RetryPolicy(baseDelay: .milliseconds(10), jitter: 0))]
        )

        let body = try await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "truncated/\(key)"))
        let arrivals = try await client.response(for: .arrivals("truncated", key))

        #expect(body == Data(repeating: UInt8(ascii: "x"), count: 100))
        #expect(arrivals.count == 2)
    }

    @Test("Without a retry, a body cut short is a transient transportFailed, not a short body")
    func truncatedBodyIsTransient() async throws {
        let key = UUID().uuidString
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))

        let error = try await #require(throws: EndpointError.self) {
            try await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "truncated/\(key)"))
        }

        #expect(error.kind == .transportFailed)
        #expect(error.isTransient)
    }

    @Test("Cancelling 300 calls releases them all as cancelled, and none that waited in line reaches the server later")
    func massCancellation() async throws {
        let key = UUID().uuidString
        let transport = URLSessionTransport()
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.fault()),
            transport: transport
        )
        let probe = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        let held = Endpoint<EndpointKinds.Public, Data>(path: "hold/\(key)")
        let perHost = URLSessionTransport.defaultConfiguration().httpMaximumConnectionsPerHost

        let calls = (0..<300).map { _ in
            Task { () async throws(EndpointError) -> Data in try await client.response(for: held) }
        }
        // The server's own count is the signal: as many as the transport lets through are held there.
        while try await probe.response(for: .arrivals("hold", key)).count < perHost { await Task.yield() }
        for call in calls { call.cancel() }
        var kinds: [EndpointError.Kind] = []
        for call in calls {
            if case .failure(let error) = await call.result {
                kinds.append((error as? EndpointError)?.kind ?? .transportFailed)
            }
        }
        // A request through the same transport and host queue goes after anything still in line.
        _ = try await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "echo/\(key)"))
        let arrived = try await probe.response(for: .arrivals("hold", key)).count

        #expect(kinds.count == 300)
        #expect(kinds.allSatisfy { $0 == .cancelled })
        #expect(arrived == perHost)
    }

    @Test("A POST after a GET to the same host is sent once, even when the server drops reused connections")
    func postIsSentOnce() async throws {
        let key = UUID().uuidString
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        var post = Endpoint<EndpointKinds.Public, Data>(
            method: .post,
            path: "drop-reused/\(key)",
            body: DataBody(Data("once".utf8))
        )
        post.timeout = .seconds(10)

        _ = try await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "echo/\(key)"))
        let echoed = try await client.response(for: post)
        _ = try await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "echo/\(key)"))
        let again = try await client.response(for: post)
        let arrivals = try await client.response(for: .arrivals("drop-reused", key))

        #expect(echoed == Data("once".utf8))
        #expect(again == Data("once".utf8))
        #expect(arrivals.count == 2, "each POST must reach the server exactly once")
    }

    @Test("A call cancelled before it is sent never reaches the server")
    func cancelledBeforeSending() async throws {
        let key = UUID().uuidString
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))

        let call = Task { () async throws(EndpointError) -> Data in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "echo/\(key)"))
        }
        let result = await call.result
        let arrivals = try await client.response(for: .arrivals("echo", key))

        if case .failure(let error) = result {
            #expect((error as? EndpointError)?.kind == .cancelled)
        } else {
            Issue.record("a cancelled call returned \(result)")
        }
        #expect(arrivals.count == 0)
    }

    @Test(
        "A call cancelled in the middle of the body, or during a redirect, ends at once as cancelled",
        arguments: ["stall-body", "redirect"]
    )
    func cancelledMidway(path: String) async throws {
        let key = UUID().uuidString
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        let probe = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        // The server's count says where the exchange is: the partial body sent, or the redirect's target reached.
        let signal = path == "stall-body" ? "stall-body-sent" : "hold"

        let call = Task { () async throws(EndpointError) -> Data in
            try await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "\(path)/\(key)"))
        }
        while try await probe.response(for: .arrivals(signal, key)).count < 1 { await Task.yield() }
        call.cancel()
        let result = await call.result

        if case .failure(let error) = result {
            #expect((error as? EndpointError)?.kind == .cancelled)
        } else {
            Issue.record("a cancelled call returned \(result)")
        }
    }

    @Test("One deadline covers every redirect hop: 11 hops of 0.1 s each time out at 0.5 s")
    func deadlineOverRedirects() async throws {
        let key = UUID().uuidString
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        var endpoint = Endpoint<EndpointKinds.Public, Data>(path: "slow-redirect/\(key)/10")
        endpoint.timeout = .milliseconds(500)

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: endpoint) }
        let hops = try await client.response(for: .arrivals("slow-redirect", key)).count

        #expect(error.kind == .timedOut)
        #expect(hops < 11, "each hop took 0.1 s: a deadline restarted per hop would let all 11 through")
    }

    @Test("Deadlines that fire as 3xx responses arrive, 120 times over, end as timedOut or success, never in a crash")
    func deadlinesAroundRedirects() async throws {
        // FoundationNetworking stops the process with a fatalError when a redirect decision reaches a task cancelled
        // meanwhile; EndpointKit never answers that decision, so no timing of a deadline can trigger it.
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        let kinds = try await withThrowingTaskGroup(of: EndpointError.Kind?.self) { group in
            for index in 0..<120 {
                group.addTask {
                    var endpoint = Endpoint<EndpointKinds.Public, Data>(path: "slow-redirect/\(UUID().uuidString)/2")
                    endpoint.timeout = .milliseconds(50 + (index % 12) * 25)  // 0.05 … 0.325 s, across the 0.1 s hops
                    do throws(EndpointError) {
                        _ = try await client.response(for: endpoint)
                        return nil
                    } catch {
                        return error.kind
                    }
                }
            }
            return try await group.reduce(into: [EndpointError.Kind?]()) { $0.append($1) }
        }

        #expect(kinds.count == 120)
        #expect(kinds.allSatisfy { $0 == nil || $0 == .timedOut })
    }
}
