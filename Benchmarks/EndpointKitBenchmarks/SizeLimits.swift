import EndpointKit
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Resets the peak resident size the kernel reports (`VmHWM`) to the current one, so each case reads its own peak.
func resetPeakResident() {
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
}

/// What a hostile or oversized response costs before EndpointKit's response size limit stops it: peak memory,
/// time to the error, bytes the server managed to send, and CPU still burnt after the call returned.
func sizeLimits(faultURL: URL, limitMiB: Int) async throws {
    var defaults = RequestDefaults()
    defaults.maximumResponseSize = limitMiB << 20
    let client = EndpointClient(environment: ServerEnvironment(baseURL: faultURL), defaults: defaults, cache: nil)
    let cases: [(name: String, kind: String, mebibytes: Int, query: [URLQueryItem])] = [
        ("Content-Length 256 MiB", "length", 256, []),
        ("chunked 256 MiB", "chunked", 256, []),
        ("gzip 1 GiB of zeros", "bomb", 1024, []),
        ("gzip 4 GiB of zeros", "bomb", 4096, []),
        ("deflate 1 GiB of zeros", "bomb", 1024, [URLQueryItem(name: "encoding", value: "deflate")]),
    ]
    // Counters are read through a client of their own, so that its session is not busy with the case's transfer.
    let counter = EndpointClient(environment: ServerEnvironment(baseURL: faultURL), cache: nil)
    print("size-limits: limit \(limitMiB) MiB")
    for (name, kind, mebibytes, query) in cases {
        let key = UUID().uuidString
        let endpoint = Endpoint<EndpointKinds.Public, Data>(path: "\(kind)/\(key)/\(mebibytes)", queryItems: query)
        resetPeakResident()
        let before = currentResidentKilobytes()
        let cpuBefore = processCPUSeconds()
        let clock = ContinuousClock()
        let started = clock.now
        var outcome = "success"
        do {
            _ = try await client.response(for: endpoint)
        } catch {
            outcome = "\(error.kind)"
        }
        let elapsed = clock.now - started
        let cpuAtReturn = processCPUSeconds()
        var samples: [String] = []
        for milliseconds in [0, 10, 20, 50, 100, 200, 500] {
            try await Task.sleep(until: started + elapsed + .milliseconds(milliseconds))
            let sent = try await counter.response(
                for: Endpoint<EndpointKinds.Public, [String: Int]>(path: "count/\(kind)-sent/\(key)")
            )
            samples.append("\(milliseconds)ms:\((sent["count"] ?? 0) >> 20)")
        }
        print("    server-sent MiB after the error: \(samples.joined(separator: " "))")
        try await Task.sleep(until: started + elapsed + .seconds(1))
        let cpuAfter = processCPUSeconds()
        let peak = peakResidentKilobytes()
        let counted = try await counter.response(
            for: Endpoint<EndpointKinds.Public, [String: Int]>(path: "count/\(kind)-sent/\(key)")
        )
        let sent = Double(counted["count"] ?? 0) / 1_048_576
        print(
            "  \(name): \(outcome) after \(elapsed), server sent \(String(format: "%.1f", sent)) MiB,"
                + " peak RSS +\((peak - before) / 1024) MiB, CPU \(String(format: "%.2f", cpuAtReturn - cpuBefore)) s"
                + " to the error and \(String(format: "%.2f", cpuAfter - cpuAtReturn)) s in the second after"
        )
    }
}
