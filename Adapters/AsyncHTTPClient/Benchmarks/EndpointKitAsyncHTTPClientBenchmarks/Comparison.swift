#if AsyncHTTPClient
import AsyncHTTPClient
import EndpointKit
import EndpointKitAsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// `{"result": User}`, the 1 KB body both sides fetch and decode.
struct BenchUser: Decodable, Sendable {
    var id: Int
    var name: String
    var email: String
    var bio: String
}

private struct Envelope: Decodable, Sendable { var result: BenchUser }

/// EndpointKit over AsyncHTTPClientTransport against raw AsyncHTTPClient doing the same work (the same
/// configuration, `Accept: application/json`, a 60 s deadline, the body collected up to 64 MiB and decoded),
/// interleaved in one process, rotating which side goes first: the per-pair ratios of wall and CPU time.
enum Comparison {
    struct Case {
        var name: String
        var count: Int
        var concurrency: Int
    }

    static func run(nginxURL: URL, pairs: Int) async throws {
        let cases = [
            Case(name: "1 KB, sequential", count: 400, concurrency: 1),
            Case(name: "1 KB, 16 concurrent", count: 2_000, concurrency: 16),
        ]
        let http = HTTPClient(configuration: AsyncHTTPClientTransport.defaultConfiguration())
        let transport = AsyncHTTPClientTransport()
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: nginxURL),
            transport: transport,
            envelope: .networkResponse,
            cache: nil
        )
        let url = nginxURL.appendingPathComponent("user-1k.json")
        let rawCall: @Sendable () async throws -> Void = { try await rawFetch(url, with: http) }
        let kitCall: @Sendable () async throws -> Void = {
            _ = try await client.response(for: Endpoint<EndpointKinds.Public, BenchUser>(path: "user-1k.json"))
        }
        print("compare: EndpointKit over AsyncHTTPClientTransport / raw AsyncHTTPClient, \(pairs) interleaved pairs")
        for benchCase in cases {
            _ = try await measure(count: 100, concurrency: benchCase.concurrency, rawCall)
            _ = try await measure(count: 100, concurrency: benchCase.concurrency, kitCall)
            var wall: [Double] = []
            var cpu: [Double] = []
            for pair in 0..<pairs {
                var runs: [(wall: Double, cpu: Double)] = [(0, 0), (0, 0)]
                for side in pair % 2 == 0 ? [0, 1] : [1, 0] {
                    runs[side] = try await measure(
                        count: benchCase.count,
                        concurrency: benchCase.concurrency,
                        side == 0 ? rawCall : kitCall
                    )
                }
                wall.append(runs[1].wall / runs[0].wall)
                cpu.append(runs[1].cpu / runs[0].cpu)
            }
            print("  \(benchCase.name) (\(benchCase.count) requests per run)")
            print("    EndpointKit / raw:   wall \(show(wall))   cpu \(show(cpu))")
        }
        try await transport.shutdown()
        try await http.shutdown()
    }

    /// One raw call: what EndpointKit's default path does for a 1 KB JSON body.
    static func rawFetch(_ url: URL, with http: HTTPClient) async throws {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "Accept", value: "application/json")
        let response = try await http.execute(request, timeout: .seconds(60))
        guard response.status == .ok else { throw URLError(.badServerResponse) }
        let body = try await response.body.collect(upTo: 64 << 20)
        _ = try JSONDecoder().decode(Envelope.self, from: Data(buffer: body))
    }

    private static func show(_ ratios: [Double]) -> String {
        let sorted = ratios.sorted()
        let middle =
            sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        return String(format: "%.3f [%.3f–%.3f]", middle, sorted.first ?? 0, sorted.last ?? 0)
    }

    private static func measure(count: Int, concurrency: Int, _ call: @escaping @Sendable () async throws -> Void)
        async throws -> (wall: Double, cpu: Double)
    {
        let cpuStart = processCPUSeconds()
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            var started = 0
            for _ in 0..<min(concurrency, count) {
                group.addTask { try await call() }
                started += 1
            }
            while try await group.next() != nil {
                guard started < count else { continue }
                group.addTask { try await call() }
                started += 1
            }
        }
        let elapsed = start.duration(to: .now)
        let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return (wall, processCPUSeconds() - cpuStart)
    }

    /// CPU seconds this process has used so far, user and system together.
    private static func processCPUSeconds() -> Double {
        let (user, system) = IdleStream.cpuSeconds()
        return user + system
    }
}
#endif
