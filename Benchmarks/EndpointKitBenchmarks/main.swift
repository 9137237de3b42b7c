import EndpointKit
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Benchmarks whose numbers we report; run them with scripts/benchmark.sh, which starts the loopback servers.
//
//   endpointkit-benchmarks multipart-upload NGINX_URL [MEGABYTES]   peak memory of a streamed multipart upload
//   endpointkit-benchmarks request-building [COUNT]                   URLRequests built per second
//   endpointkit-benchmarks load HTTPBIN_URL [REQUESTS] [CONCURRENCY]  the full chain against httpbin
//   endpointkit-benchmarks compare NGINX_URL [PAIRS]                  EndpointKit / raw URLSession ratios
//   endpointkit-benchmarks compare-posts ECHO_URL [PAIRS] [COUNT] [CONCURRENCY]
//                                                                      what never sending a POST twice costs
//   endpointkit-benchmarks pipeline-cost JSON_FILE [COUNT]            µs per call with an instant transport
//   endpointkit-benchmarks cancel-storm FAULT_URL [COUNT]             cancelling many held calls at once
//   endpointkit-benchmarks profile kit|raw|floor NGINX_URL [COUNT]    a fixed workload for perf
//   endpointkit-benchmarks redirect-cancel-stress FAULT_URL [CALLS]   deadlines landing among 3xx arrivals
//   endpointkit-benchmarks size-limits FAULT_URL [LIMIT_MIB]          what oversized and compressed bodies cost
//   endpointkit-benchmarks download NGINX_URL [MEBIBYTES] [ROUNDS] [whole|parts|urlsession]
//                                                                      peak memory of a download to disk
//   endpointkit-benchmarks stream NGINX_URL [MEBIBYTES]                peak memory of decoding JSON Lines as they stream
//   endpointkit-benchmarks cache-walk FAULT_URL [PAGES]                a repeated paged walk through the HTTP cache
//   endpointkit-benchmarks cache-hit NGINX_URL [PAIRS]                 a fresh hit / a loopback request
//   endpointkit-benchmarks cache-memory NGINX_URL [COUNT]              64 KiB responses through a 16 MiB cache
//   endpointkit-benchmarks model-store [OBSERVERS]                     the model store at scale, no network
//
// Knobs for experiments, read from the environment: EK_CASE=N runs one comparison case; EK_FILE names the file
// `profile` fetches; EK_NO_DEADLINE=1 gives the EndpointKit side no deadline; EK_NO_FRESH=1 turns off fresh
// connections for non-idempotent requests in `profile`.

func peakResidentKilobytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
    return -1
}

func currentResidentKilobytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
    return -1
}

func writeFile(megabytes: Int, to url: URL) throws {
    _ = FileManager.default.createFile(atPath: url.path, contents: nil)
    let handle = try FileHandle(forWritingTo: url)
    defer { try? handle.close() }
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    var state: UInt64 = 42
    for _ in 0..<megabytes {
        for index in chunk.indices {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            chunk[index] = UInt8(truncatingIfNeeded: state >> 56)
        }
        try handle.write(contentsOf: Data(chunk))
    }
}

func multipartUpload(baseURL: URL, megabytes: Int) async throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("ek-bench-\(UUID().uuidString).bin")
    try writeFile(megabytes: megabytes, to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let client = EndpointClient(environment: ServerEnvironment(baseURL: baseURL), cache: nil)
    let endpoint = Endpoint<EndpointKinds.Public, EmptyResponse>(
        method: .put,
        path: "uploads/bench-\(UUID().uuidString)",
        body: MultipartBody([.field("kind", "benchmark"), .file("data", fileURL: file)])
    )
    let before = peakResidentKilobytes()
    let clock = ContinuousClock()
    let start = clock.now
    _ = try await client.response(for: endpoint)
    let elapsed = clock.now - start
    let peak = peakResidentKilobytes()
    print("multipart-upload: file \(megabytes) MiB")
    print("  peak RSS before upload: \(before / 1024) MiB")
    print("  peak RSS after upload:  \(peak / 1024) MiB (growth \((peak - before) / 1024) MiB)")
    print("  current RSS:            \(currentResidentKilobytes() / 1024) MiB")
    print("  wall time:              \(elapsed)")
}

func requestBuilding(count: Int) throws {
    guard let base = URL(string: "https://api.example.com/v1") else { return }
    let environment = ServerEnvironment(baseURL: base, headers: ["X-Client": "bench"])
    let defaults = RequestDefaults()
    let clock = ContinuousClock()
    let start = clock.now
    var bytes = 0
    for index in 0..<count {
        let endpoint = Endpoint<EndpointKinds.Private, EmptyResponse>(
            path: "users/\(index)/items/\("a/b ü")",
            query: ["q": "green tea + milk", "page": index, "tags": ["a", "b"]]
        )
        let request = try endpoint.makeRequest(in: environment, with: AccessToken("token-\(index)"), defaults: defaults)
        bytes += request.url?.absoluteString.utf8.count ?? 0
    }
    let elapsed = clock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    print("request-building: \(count) requests in \(elapsed): \(Int(Double(count) / seconds)) per second")
    print("  (\(bytes / count) bytes of URL each)")
}

struct Echo: Decodable, Sendable {
    var args: [String: String]
}

func load(baseURL: URL, requests: Int, concurrency: Int) async throws {
    let configuration = URLSessionTransport.defaultConfiguration()
    configuration.httpMaximumConnectionsPerHost = concurrency
    let client = EndpointClient(
        environment: ServerEnvironment(baseURL: baseURL),
        transport: URLSessionTransport(configuration: configuration),
        middleware: [Retry(), Throttle(maxConcurrent: concurrency), ExchangeLogging { _ in }],
        cache: nil
    )
    let clock = ContinuousClock()
    let start = clock.now
    let outcomes = await withTaskGroup(of: (Duration, Bool).self) { group in
        for index in 0..<requests {
            group.addTask {
                let begin = clock.now
                let endpoint = Endpoint<EndpointKinds.Public, Echo>(path: "anything", query: ["i": index])
                let echo = try? await client.response(for: endpoint)
                return (clock.now - begin, echo?.args["i"] == String(index))
            }
        }
        return await group.reduce(into: [(Duration, Bool)]()) { $0.append($1) }
    }
    let elapsed = clock.now - start
    let latencies = outcomes.map(\.0).sorted()
    let failures = outcomes.filter { !$0.1 }.count
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    print("load: \(requests) requests, \(concurrency) in flight, \(failures) failures")
    print("  wall time \(elapsed), \(Int(Double(requests) / seconds)) requests per second")
    print("  latency p50 \(latencies[latencies.count / 2]), p99 \(latencies[latencies.count * 99 / 100])")
}

let arguments = CommandLine.arguments.dropFirst()
switch arguments.first {
case "multipart-upload":
    guard let text = arguments.dropFirst().first, let url = URL(string: text) else {
        print("usage: endpointkit-benchmarks multipart-upload NGINX_URL [MEGABYTES]")
        exit(64)
    }
    try await multipartUpload(baseURL: url, megabytes: arguments.dropFirst(2).first.flatMap { Int($0) } ?? 64)
case "load":
    guard let text = arguments.dropFirst().first, let url = URL(string: text) else {
        print("usage: endpointkit-benchmarks load HTTPBIN_URL [REQUESTS] [CONCURRENCY]")
        exit(64)
    }
    try await load(
        baseURL: url,
        requests: arguments.dropFirst(2).first.flatMap { Int($0) } ?? 1_000,
        concurrency: arguments.dropFirst(3).first.flatMap { Int($0) } ?? 64
    )
case "compare":
    guard let text = arguments.dropFirst().first, let url = URL(string: text) else {
        print("usage: endpointkit-benchmarks compare NGINX_URL [PAIRS]")
        exit(64)
    }
    try await compare(baseURL: url, pairs: arguments.dropFirst(2).first.flatMap { Int($0) } ?? 10)
case "redirect-cancel-stress":
    guard let text = arguments.dropFirst().first, let url = URL(string: text) else {
        print("usage: endpointkit-benchmarks redirect-cancel-stress FAULT_URL [CALLS]")
        exit(64)
    }
    try await redirectCancelStress(faultURL: url, calls: arguments.dropFirst(2).first.flatMap { Int($0) } ?? 300)
case "cancel-storm":
    guard let text = arguments.dropFirst().first, let url = URL(string: text) else {
        print("usage: endpointkit-benchmarks cancel-storm FAULT_URL [COUNT]")
        exit(64)
    }
    try await cancelStorm(faultURL: url, count: arguments.dropFirst(2).first.flatMap { Int($0) } ?? 1_000)
case "pipeline-cost":
    guard let path = arguments.dropFirst().first else {
        print("usage: endpointkit-benchmarks pipeline-cost JSON_FILE [COUNT]")
        exit(64)
    }
    try await pipelineCost(
        baseURL: URL(fileURLWithPath: path),
        count: arguments.dropFirst(2).first.flatMap { Int($0) } ?? 20_000
    )
case "profile":
    let rest = Array(arguments.dropFirst())
    guard rest.count >= 2, let url = URL(string: rest[1]) else {
        print("usage: endpointkit-benchmarks profile kit|raw NGINX_URL [COUNT]")
        exit(64)
    }
    try await profile(side: rest[0], baseURL: url, count: rest.dropFirst(2).first.flatMap { Int($0) } ?? 300)
case "stream":
    guard let text = arguments.dropFirst().first, let url = URL(string: text) else {
        print("usage: endpointkit-benchmarks stream NGINX_URL [MEBIBYTES]")
        exit(64)
    }
    try await streamMemory(nginxURL: url, mebibytes: arguments.dropFirst(2).first.flatMap { Int($0) } ?? 1024)
case "download":
    guard let text = arguments.dropFirst().first, let url = URL(string: text) else {
        print("usage: endpointkit-benchmarks download NGINX_URL [MEBIBYTES] [ROUNDS] [whole|parts|urlsession]")
        exit(64)
    }
    try await downloadMemory(
        nginxURL: url,
        mebibytes: arguments.dropFirst(2).first.flatMap { Int($0) } ?? 1024,
        rounds: arguments.dropFirst(3).first.flatMap { Int($0) } ?? 2,
        only: arguments.dropFirst(4).first
    )
case "size-limits":
    guard let text = arguments.dropFirst().first, let url = URL(string: text) else {
        print("usage: endpointkit-benchmarks size-limits FAULT_URL [LIMIT_MIB]")
        exit(64)
    }
    try await sizeLimits(faultURL: url, limitMiB: arguments.dropFirst(2).first.flatMap { Int($0) } ?? 1)
case "compare-posts":
    guard let text = arguments.dropFirst().first, let url = URL(string: text) else {
        print("usage: endpointkit-benchmarks compare-posts ECHO_URL [PAIRS] [COUNT] [CONCURRENCY]")
        exit(64)
    }
    try await comparePosts(
        echoURL: url,
        pairs: arguments.dropFirst(2).first.flatMap { Int($0) } ?? 10,
        count: arguments.dropFirst(3).first.flatMap { Int($0) } ?? 1_000,
        concurrency: arguments.dropFirst(4).first.flatMap { Int($0) } ?? 16
    )
case "cache-walk":
    guard let text = arguments.dropFirst().first, let url = URL(string: text) else {
        print("usage: endpointkit-benchmarks cache-walk FAULT_URL [PAGES]")
        exit(64)
    }
    try await cacheWalk(faultURL: url, pages: arguments.dropFirst(2).first.flatMap { Int($0) } ?? 100)
case "cache-hit":
    guard let text = arguments.dropFirst().first, let url = URL(string: text) else {
        print("usage: endpointkit-benchmarks cache-hit NGINX_URL [PAIRS]")
        exit(64)
    }
    try await cacheHit(nginxURL: url, pairs: arguments.dropFirst(2).first.flatMap { Int($0) } ?? 12)
case "cache-memory":
    guard let text = arguments.dropFirst().first, let url = URL(string: text) else {
        print("usage: endpointkit-benchmarks cache-memory NGINX_URL [COUNT]")
        exit(64)
    }
    try await cacheMemory(nginxURL: url, count: arguments.dropFirst(2).first.flatMap { Int($0) } ?? 2_000)
case "model-store":
    try await modelStore(observers: arguments.dropFirst().first.flatMap { Int($0) } ?? 10_000)
case "request-building":
    try requestBuilding(count: arguments.dropFirst().first.flatMap { Int($0) } ?? 100_000)
default:
    print(
        "usage: endpointkit-benchmarks multipart-upload NGINX_URL [MEGABYTES] | request-building [COUNT]"
            + " | load HTTPBIN_URL [REQUESTS] [CONCURRENCY] | compare NGINX_URL [PAIRS]"
    )
    exit(64)
}
