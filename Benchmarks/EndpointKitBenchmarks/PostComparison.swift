import EndpointKit
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What it costs that `URLSessionTransport` never sends a `POST` twice: 1 KB `POST`s to loopback nginx through
/// EndpointKit (each on a one-request session) against raw URLSession on one keep-alive session (which libcurl may
/// resend on a dead connection), against raw URLSession with a one-request session each (the same guarantee, by
/// hand), and against one shared session whose requests carry `Connection: close` (0.2.0's way, which stalls
/// against servers that close without saying so), in interleaved pairs.
func comparePosts(echoURL: URL, pairs: Int, count: Int, concurrency: Int) async throws {
    let configuration = URLSessionTransport.defaultConfiguration()
    configuration.httpMaximumConnectionsPerHost = concurrency
    let body = Data(repeating: UInt8(ascii: "x"), count: 1024)
    let url = echoURL.appendingPathComponent("posts")
    @Sendable func request() -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        return request
    }
    let keepAlive = URLSession(configuration: configuration)
    let rawKeepAlive: @Sendable () async throws -> Void = {
        let (_, response) = try await keepAlive.data(for: request())
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw URLError(.badServerResponse) }
    }
    let rawOneRequest: @Sendable () async throws -> Void = {
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        var closing = request()
        closing.setValue("close", forHTTPHeaderField: "Connection")
        let (_, response) = try await session.data(for: closing)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw URLError(.badServerResponse) }
    }
    let sharedClosing = URLSession(configuration: configuration)
    let rawSharedClose: @Sendable () async throws -> Void = {
        var closing = request()
        closing.setValue("close", forHTTPHeaderField: "Connection")
        let (_, response) = try await sharedClosing.data(for: closing)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw URLError(.badServerResponse) }
    }
    let client = EndpointClient(
        environment: ServerEnvironment(baseURL: echoURL),
        transport: URLSessionTransport(configuration: configuration),
        cache: nil
    )
    let post = Endpoint<EndpointKinds.Public, Data>(method: .post, path: "posts", body: DataBody(body))
    let kit: @Sendable () async throws -> Void = { _ = try await client.response(for: post) }

    let sides = [rawKeepAlive, kit, rawOneRequest, rawSharedClose]
    for side in sides { _ = try await measure(count: 100, concurrency: concurrency, side) }
    var kitWall: [Double] = []
    var kitCPU: [Double] = []
    var handWall: [Double] = []
    var handCPU: [Double] = []
    var sharedWall: [Double] = []
    for pair in 0..<pairs {
        var runs: [Int: (wall: Double, cpu: Double)] = [:]
        for offset in 0..<sides.count {
            let side = (pair + offset) % sides.count
            runs[side] = try await measure(count: count, concurrency: concurrency, sides[side])
        }
        guard let raw = runs[0], let kitRun = runs[1], let hand = runs[2], let shared = runs[3] else { continue }
        sharedWall.append(shared.wall / raw.wall)
        kitWall.append(kitRun.wall / raw.wall)
        kitCPU.append(kitRun.cpu / raw.cpu)
        handWall.append(hand.wall / raw.wall)
        handCPU.append(hand.cpu / raw.cpu)
    }
    func show(_ ratios: [Double]) -> String {
        String(format: "%.3f [%.3f–%.3f]", median(ratios), ratios.min() ?? 0, ratios.max() ?? 0)
    }
    print(
        "compare-posts: \(count) POSTs of 1 KB, \(concurrency) in flight, \(pairs) interleaved pairs (median [min–max])"
    )
    print("  EndpointKit (one-request sessions) / raw keep-alive:   wall \(show(kitWall))   cpu \(show(kitCPU))")
    print("  raw one-request sessions / raw keep-alive:             wall \(show(handWall))   cpu \(show(handCPU))")
    print("  raw shared session, Connection: close (0.2.0's way) / raw keep-alive: wall \(show(sharedWall))")
}
