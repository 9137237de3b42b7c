#if AsyncHTTPClient
import EndpointKit
import EndpointKitAsyncHTTPClient
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

private struct Line: Decodable {
    var index: Int
}

/// The CPU an open stream costs while it waits: one JSON Lines stream whose server sends a small line every
/// second, read to its end through one transport, in this process.
enum IdleStream {
    /// CPU seconds (user, system) this process has used so far.
    static func cpuSeconds() -> (user: Double, system: Double) {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return (seconds(usage.ru_utime), seconds(usage.ru_stime))
    }

    /// Reads `lines` lines, one a second, from the fault server through `side` (`asynchttpclient` or
    /// `urlsession`), and describes the CPU it used per second of wall time.
    static func run(side: String, faultURL: URL, lines: Int) async throws -> String {
        let transport: any Transport = side == "urlsession" ? URLSessionTransport() : AsyncHTTPClientTransport()
        let client = EndpointClient(environment: ServerEnvironment(baseURL: faultURL), transport: transport, cache: nil)
        var endpoint = Endpoint<EndpointKinds.Public, JSONLines<Line>>(
            path: "jsonl/idle-\(UUID().uuidString)/\(lines)",
            queryItems: [URLQueryItem(name: "delay-ms", value: "1000")]
        )
        endpoint.idleTimeout = .seconds(30)
        let before = cpuSeconds()
        let start = ContinuousClock.now
        var received = 0
        for try await _ in try await client.stream(for: endpoint) { received += 1 }
        let wall = (ContinuousClock.now - start).components
        let seconds = Double(wall.seconds) + Double(wall.attoseconds) / 1e18
        let after = cpuSeconds()
        let user = after.user - before.user
        let system = after.system - before.system
        func figure(_ value: Double) -> String { String(format: "%.2f", value) }
        return "idle-stream \(side): \(received) lines in \(String(format: "%.1f", seconds)) s, CPU "
            + "\(figure((user + system) / seconds)) s per second (user \(figure(user)) s, system \(figure(system)) s)"
    }
}
#endif
