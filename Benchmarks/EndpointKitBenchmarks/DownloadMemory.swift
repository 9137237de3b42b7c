import EndpointKit
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Peak memory and throughput of downloading a large file from nginx to disk: EndpointKit's `download(for:to:)`,
/// whole and in 8 MiB parts, against URLSession's own `download(from:)`, interleaved, each with the peak resident
/// size reset before it. With `only`, that side alone (`whole`, `parts` or `urlsession`): run each in a process
/// of its own for a peak that earlier cases did not raise the baseline of.
func downloadMemory(nginxURL: URL, mebibytes: Int, rounds: Int, only: String?) async throws {
    // The file is uploaded once through nginx's WebDAV folder, then downloaded.
    let source = FileManager.default.temporaryDirectory.appendingPathComponent("ek-bench-\(UUID().uuidString).bin")
    try writeFile(megabytes: mebibytes, to: source)
    defer { try? FileManager.default.removeItem(at: source) }
    let client = EndpointClient(environment: ServerEnvironment(baseURL: nginxURL), cache: nil)
    var inParts = RequestDefaults()
    inParts.downloadPartSize = 8 << 20
    let partsClient = EndpointClient(environment: ServerEnvironment(baseURL: nginxURL), defaults: inParts, cache: nil)
    let path = try await upload(source, as: "download-\(UUID().uuidString).bin", with: client)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ek-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let session = URLSession(configuration: .ephemeral)

    print("download: \(mebibytes) MiB from nginx to disk, \(rounds) rounds, interleaved")
    for round in 1...rounds {
        // The side that goes first rotates: the first large write of a round pays for the page cache.
        let names = ["whole": "EndpointKit", "parts": "EndpointKit, 8 MiB parts", "urlsession": "URLSession"]
        let all = ["EndpointKit", "EndpointKit, 8 MiB parts", "URLSession"]
        let first = (round - 1) % all.count
        let rotated = Array(all[first...]) + Array(all[..<first])
        let sides = only.map { [names[$0] ?? $0] } ?? rotated
        for side in sides {
            let destination = folder.appendingPathComponent("\(side)-\(round).bin")
            resetPeakResident()
            let before = currentResidentKilobytes()
            let clock = ContinuousClock()
            let started = clock.now
            if side.hasPrefix("EndpointKit") {
                let downloader = side == "EndpointKit" ? client : partsClient
                _ = try await downloader.download(
                    for: Endpoint<EndpointKinds.Public, URL>(path: EndpointPath(stringLiteral: path)),
                    to: destination
                ).result()
            } else {
                let (file, _) = try await session.download(from: nginxURL.appendingPathComponent(path))
                try FileManager.default.moveItem(at: file, to: destination)
            }
            let elapsed = clock.now - started
            let peak = peakResidentKilobytes()
            let size =
                (try FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? NSNumber)?
                .intValue ?? 0
            let rate = Double(size) / 1_048_576 / elapsed.inSecondsForBenchmark
            print(
                "  \(side): peak RSS +\((peak - before) / 1024) MiB over \(before / 1024) MiB, "
                    + "\(String(format: "%.0f", rate)) MiB/s, \(size >> 20) MiB written"
            )
            try FileManager.default.removeItem(at: destination)
        }
    }
}

/// Stores `file` in nginx's WebDAV folder and returns its path there, for a benchmark to download.
func upload(_ file: URL, as name: String, with client: EndpointClient) async throws -> String {
    let path = "uploads/\(name)"
    _ = try await client.response(
        for: Endpoint<EndpointKinds.Public, EmptyResponse>(
            method: .put,
            path: EndpointPath(stringLiteral: path),
            body: FileBody(file)
        )
    )
    return path
}

extension Duration {
    /// Seconds as a Double, for rates.
    var inSecondsForBenchmark: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
