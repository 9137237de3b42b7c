import EndpointKit
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// EndpointKit against raw URLSession configured identically (ephemeral, no cache, no cookies, the same
// connection limit), decoding the same `{"result": User}` JSON from loopback nginx. The two run in interleaved
// pairs in one process, alternating which goes first, because this machine's absolute speed drifts; what is
// reported is the per-pair ratio of wall time and of process CPU time (user + system, every thread).

struct BenchUser: Codable, Sendable {
    var id: Int
    var name: String
    var email: String
    var bio: String
}

struct Envelope<Value: Decodable & Sendable>: Decodable, Sendable { var result: Value }

extension Endpoint where Kind == EndpointKinds.Public, Response == BenchUser {
    static func benchUser(_ file: String) -> Self { Endpoint(path: "\(file)") }
}

extension Endpoint where Kind == EndpointKinds.Authenticated, Response == BenchUser {
    static func authenticatedBenchUser(_ file: String) -> Self { Endpoint(path: "\(file)") }
}

struct BenchAPIError: Error, Decodable, Sendable { var message: String }

/// The least a URLSession client that keeps redirects in its own hands can do on Linux: a session delegate
/// that declines redirects and collects each body from its data callbacks. The floor under EndpointKit's
/// default transport, measured beside it.
final class CollectingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Safe because every access to `tasks` holds `lock`.
    private var tasks: [Int: (Data, CheckedContinuation<(Data, URLResponse), any Error>)] = [:]
    private let lock = NSLock()

    func data(for request: URLRequest, in session: URLSession) async throws -> (Data, URLResponse) {
        let task = session.dataTask(with: request)
        return try await withCheckedThrowingContinuation { continuation in
            lock.lock()
            tasks[task.taskIdentifier] = (Data(), continuation)
            lock.unlock()
            task.resume()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.lock()
        tasks[dataTask.taskIdentifier]?.0.append(data)
        lock.unlock()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        lock.lock()
        let entry = tasks.removeValue(forKey: task.taskIdentifier)
        lock.unlock()
        guard let (data, continuation) = entry else { return }
        if let error {
            continuation.resume(throwing: error)
        } else if let response = task.response {
            continuation.resume(returning: (data, response))
        } else {
            continuation.resume(throwing: URLError(.badServerResponse))
        }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

/// Process CPU time so far, user and system, in seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    #if os(Linux)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// Runs `count` calls of `call`, `concurrency` at a time, and returns wall and CPU seconds.
func measure(count: Int, concurrency: Int, _ call: @escaping @Sendable () async throws -> Void) async throws
    -> (wall: Double, cpu: Double)
{
    let cpuStart = processCPUSeconds()
    let clock = ContinuousClock()
    let start = clock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        var started = 0
        for _ in 0..<min(concurrency, count) {
            group.addTask { try await call() }
            started += 1
        }
        while try await group.next() != nil {
            if started < count {
                group.addTask { try await call() }
                started += 1
            }
        }
    }
    let elapsed = clock.now - start
    let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return (wall, processCPUSeconds() - cpuStart)
}

struct ComparisonCase {
    var name: String
    var file: String
    var count: Int
    var concurrency: Int
    var pipeline: Bool
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func compare(baseURL: URL, pairs: Int) async throws {
    let only = ProcessInfo.processInfo.environment["EK_CASE"].flatMap(Int.init)
    let allCases = [
        ComparisonCase(name: "1 KB, sequential", file: "user-1k.json", count: 400, concurrency: 1, pipeline: false),
        ComparisonCase(
            name: "1 KB, 16 concurrent",
            file: "user-1k.json",
            count: 2_000,
            concurrency: 16,
            pipeline: false
        ),
        ComparisonCase(
            name: "100 KB, 16 concurrent",
            file: "user-100k.json",
            count: 400,
            concurrency: 16,
            pipeline: false
        ),
        ComparisonCase(
            name: "1 KB, 16 concurrent, README pipeline",
            file: "user-1k.json",
            count: 2_000,
            concurrency: 16,
            pipeline: true
        ),
    ]
    let cases = only.map { [allCases[$0]] } ?? allCases
    print("compare: EndpointKit / raw URLSession, \(pairs) interleaved pairs per case (median [min–max])")
    for benchCase in cases {
        let configuration = URLSessionTransport.defaultConfiguration()
        configuration.httpMaximumConnectionsPerHost = max(benchCase.concurrency, 1)
        let raw = URLSession(configuration: configuration)
        let url = baseURL.appendingPathComponent(benchCase.file)
        let decoder = JSONDecoder()
        let rawCall: @Sendable () async throws -> Void = {
            var request = URLRequest(url: url)
            request.setValue("application/json", forHTTPHeaderField: "Accept")
            if benchCase.pipeline { request.setValue("Bearer bench-token", forHTTPHeaderField: "Authorization") }
            let (data, response) = try await raw.data(for: request)
            guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw URLError(.badServerResponse) }
            _ = try decoder.decode(Envelope<BenchUser>.self, from: data)
        }
        let collecting = CollectingDelegate()
        let floorSession = URLSession(configuration: configuration, delegate: collecting, delegateQueue: nil)
        let floorCall: @Sendable () async throws -> Void = {
            var request = URLRequest(url: url)
            request.setValue("application/json", forHTTPHeaderField: "Accept")
            if benchCase.pipeline { request.setValue("Bearer bench-token", forHTTPHeaderField: "Authorization") }
            let (data, response) = try await collecting.data(for: request, in: floorSession)
            guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw URLError(.badServerResponse) }
            _ = try decoder.decode(Envelope<BenchUser>.self, from: data)
        }
        let client: EndpointClient
        let environment = ServerEnvironment(baseURL: baseURL)
        let transport = URLSessionTransport(configuration: configuration)
        if benchCase.pipeline {
            let auth = BearerAuthentication(token: { AccessToken("bench-token") }, refresh: { $0 })
            client = EndpointClient(
                environment: environment,
                transport: transport,
                envelope: .networkResponse,
                middleware: [auth, Retry(), Throttle(maxConcurrent: benchCase.concurrency), ExchangeLogging { _ in }],
                validators: [.errorEnvelope(BenchAPIError.self)],
                cache: nil
            )
        } else {
            var defaults = RequestDefaults()
            if ProcessInfo.processInfo.environment["EK_NO_DEADLINE"] != nil { defaults.timeout = nil }
            client = EndpointClient(
                environment: environment,
                transport: transport,
                envelope: .networkResponse,
                defaults: defaults,
                cache: nil
            )
        }
        let file = benchCase.file
        let isPipeline = benchCase.pipeline
        let kitCall: @Sendable () async throws -> Void = {
            if isPipeline {
                _ = try await client.response(for: .authenticatedBenchUser(file))
            } else {
                _ = try await client.response(for: .benchUser(file))
            }
        }

        // Warm both up: connections, caches, lazily initialised state.
        _ = try await measure(count: 50, concurrency: benchCase.concurrency, rawCall)
        _ = try await measure(count: 50, concurrency: benchCase.concurrency, kitCall)
        _ = try await measure(count: 50, concurrency: benchCase.concurrency, floorCall)
        var wallRatios: [Double] = []
        var cpuRatios: [Double] = []
        var floorWallRatios: [Double] = []
        var floorCPURatios: [Double] = []
        for pair in 0..<pairs {
            // Rotate which side goes first, so that drift favours none.
            var runs: [Int: (wall: Double, cpu: Double)] = [:]
            for offset in 0..<3 {
                let side = (pair + offset) % 3
                let call = side == 0 ? rawCall : side == 1 ? kitCall : floorCall
                runs[side] = try await measure(count: benchCase.count, concurrency: benchCase.concurrency, call)
            }
            guard let rawRun = runs[0], let kitRun = runs[1], let floorRun = runs[2] else { continue }
            wallRatios.append(kitRun.wall / rawRun.wall)
            cpuRatios.append(kitRun.cpu / rawRun.cpu)
            floorWallRatios.append(floorRun.wall / rawRun.wall)
            floorCPURatios.append(floorRun.cpu / rawRun.cpu)
        }
        func show(_ ratios: [Double]) -> String {
            String(format: "%.3f [%.3f–%.3f]", median(ratios), ratios.min() ?? 0, ratios.max() ?? 0)
        }
        print("  \(benchCase.name) (\(benchCase.count) requests per run)")
        print("    EndpointKit / raw:                 wall \(show(wallRatios))   cpu \(show(cpuRatios))")
        print("    delegate-collecting floor / raw:   wall \(show(floorWallRatios))   cpu \(show(floorCPURatios))")
    }
}

/// `count` sequential 1 KB calls, through EndpointKit or raw URLSession: a fixed workload to count
/// instructions under callgrind (`valgrind --tool=callgrind endpointkit-benchmarks profile kit NGINX_URL 300`).
func profile(side: String, baseURL: URL, count: Int) async throws {
    let configuration = URLSessionTransport.defaultConfiguration()
    let file = ProcessInfo.processInfo.environment["EK_FILE"] ?? "user-1k.json"
    let url = baseURL.appendingPathComponent(file)
    if side == "floor" {
        let collecting = CollectingDelegate()
        let session = URLSession(configuration: configuration, delegate: collecting, delegateQueue: nil)
        let decoder = JSONDecoder()
        for _ in 0..<count {
            var request = URLRequest(url: url)
            request.setValue("application/json", forHTTPHeaderField: "Accept")
            let (data, _) = try await collecting.data(for: request, in: session)
            _ = try decoder.decode(Envelope<BenchUser>.self, from: data)
        }
    } else if side == "raw" {
        let raw = URLSession(configuration: configuration)
        let decoder = JSONDecoder()
        for _ in 0..<count {
            var request = URLRequest(url: url)
            request.setValue("application/json", forHTTPHeaderField: "Accept")
            let (data, _) = try await raw.data(for: request)
            _ = try decoder.decode(Envelope<BenchUser>.self, from: data)
        }
    } else {
        var defaults = RequestDefaults()
        if ProcessInfo.processInfo.environment["EK_NO_DEADLINE"] != nil { defaults.timeout = nil }
        let fresh = ProcessInfo.processInfo.environment["EK_NO_FRESH"] == nil
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: baseURL),
            transport: URLSessionTransport(
                configuration: configuration,
                sendsNonIdempotentRequestsOnFreshConnections: fresh
            ),
            envelope: .networkResponse,
            defaults: defaults,
            cache: nil
        )
        for _ in 0..<count { _ = try await client.response(for: .benchUser(file)) }
    }
}

/// Answers every request at once with the same body: what EndpointKit itself costs per call, without a network.
/// It answers before any deadline could pass, so it says it enforces them: the client starts no timer of its own,
/// as with both built-in transports.
struct InstantTransport: Transport {
    let body: Data
    var enforcesTimeout: Bool { true }
    func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse {
        TransportResponse(statusCode: 200, headers: [.contentType: "application/json"], url: request.url, data: body)
    }
}

/// Microseconds per call through EndpointKit with an instant transport, against decoding the same body alone.
func pipelineCost(baseURL: URL, count: Int) async throws {
    let body = try Data(contentsOf: baseURL)
    let decoder = JSONDecoder()
    let clock = ContinuousClock()
    var start = clock.now
    for _ in 0..<count { _ = try decoder.decode(Envelope<BenchUser>.self, from: body) }
    let decodeOnly = clock.now - start
    guard let api = URL(string: "https://api.example.com/v1") else { return }
    let plain = EndpointClient(
        environment: ServerEnvironment(baseURL: api),
        transport: InstantTransport(body: body),
        envelope: .networkResponse,
        cache: nil
    )
    start = clock.now
    for _ in 0..<count { _ = try await plain.response(for: .benchUser("user-1k.json")) }
    let kit = clock.now - start
    let auth = BearerAuthentication(token: { AccessToken("bench-token") }, refresh: { $0 })
    let full = EndpointClient(
        environment: ServerEnvironment(baseURL: api),
        transport: InstantTransport(body: body),
        envelope: .networkResponse,
        middleware: [auth, Retry(), Throttle(maxConcurrent: 16), ExchangeLogging { _ in }],
        validators: [.errorEnvelope(BenchAPIError.self)],
        cache: nil
    )
    start = clock.now
    for _ in 0..<count { _ = try await full.response(for: .authenticatedBenchUser("user-1k.json")) }
    let pipeline = clock.now - start
    func micro(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return String(format: "%.1f µs", seconds * 1e6 / Double(count))
    }
    print("pipeline-cost: \(count) calls with an instant transport, per call")
    print("  decoding the body alone:         \(micro(decodeOnly))")
    print("  EndpointClient, no middleware:   \(micro(kit))")
    print("  EndpointClient, README pipeline: \(micro(pipeline))")
}

private struct Arrivals: Decodable, Sendable { var count: Int }

/// Cancels `count` calls held by the fault server at once: how long the cancelling loop blocks, how long until
/// every caller is released, and how many requests reached the server after the cancellation.
func cancelStorm(faultURL: URL, count: Int) async throws {
    let key = UUID().uuidString
    let environment = ServerEnvironment(baseURL: faultURL)
    let client = EndpointClient(environment: environment, cache: nil)
    let probe = EndpointClient(environment: environment, cache: nil)
    let held = Endpoint<EndpointKinds.Public, Data>(path: "hold/\(key)")
    let arrivals = Endpoint<EndpointKinds.Public, Arrivals>(path: "count/hold/\(key)")
    let perHost = URLSessionTransport.defaultConfiguration().httpMaximumConnectionsPerHost

    let calls = (0..<count).map { _ in
        Task { () async throws(EndpointError) -> Data in try await client.response(for: held) }
    }
    while try await probe.response(for: arrivals).count < perHost { await Task.yield() }
    let before = try await probe.response(for: arrivals).count
    let clock = ContinuousClock()
    let start = clock.now
    for call in calls { call.cancel() }
    let cancelling = clock.now - start
    var cancelled = 0
    for call in calls {
        if case .failure(let error) = await call.result, (error as? EndpointError)?.kind == .cancelled {
            cancelled += 1
        }
    }
    let released = clock.now - start
    _ = try await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "echo/\(key)"))
    let after = try await probe.response(for: arrivals).count
    print("cancel-storm: \(count) calls held by the server (\(before) on the wire), cancelled together")
    print("  the cancelling loop took \(cancelling); every caller released after \(released); \(cancelled) cancelled")
    print("  requests that reached the server after the cancellation: \(after - before)")
}

/// Deadlines that fire around the arrival of a 3xx, many times over: the process must survive every one.
func redirectCancelStress(faultURL: URL, calls: Int) async throws {
    let client = EndpointClient(environment: ServerEnvironment(baseURL: faultURL), cache: nil)
    let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
        var started = 0
        var outcomes: [String: Int] = [:]
        func add() {
            let key = UUID().uuidString
            let timeout = Double.random(in: 0.05...0.6)
            group.addTask {
                var endpoint = Endpoint<EndpointKinds.Public, Data>(path: "slow-redirect/\(key)/3")
                endpoint.timeout = .milliseconds(Int(timeout * 1000))
                do throws(EndpointError) {
                    _ = try await client.response(for: endpoint)
                    return "ok"
                } catch {
                    return error.kind.description
                }
            }
            started += 1
        }
        for _ in 0..<min(16, calls) { add() }
        while let outcome = try await group.next() {
            outcomes[outcome, default: 0] += 1
            if started < calls { add() }
        }
        return outcomes
    }
    print("redirect-cancel-stress: \(calls) calls whose deadline falls among 3xx arrivals: \(outcomes)")
}
