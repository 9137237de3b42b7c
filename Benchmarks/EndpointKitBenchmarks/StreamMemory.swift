import EndpointKit
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

private struct Row: Decodable {
    var id: Int
    var name: String
    var tags: [String]
}

/// Peak memory and throughput of decoding a large JSON Lines body from nginx as it streams in.
func streamMemory(nginxURL: URL, mebibytes: Int) async throws {
    let source = FileManager.default.temporaryDirectory.appendingPathComponent("ek-bench-\(UUID().uuidString).jsonl")
    _ = FileManager.default.createFile(atPath: source.path, contents: nil)
    let handle = try FileHandle(forWritingTo: source)
    var rows = 0
    var block = ""
    var written = 0
    while written < mebibytes << 20 {
        block.removeAll(keepingCapacity: true)
        for _ in 0..<10_000 {
            block += #"{"id": \#(rows), "name": "item-\#(rows)", "tags": ["green", "hot", "sale"]}"# + "\n"
            rows += 1
        }
        try handle.write(contentsOf: Data(block.utf8))
        written += block.utf8.count
    }
    try handle.close()
    defer { try? FileManager.default.removeItem(at: source) }
    let client = EndpointClient(environment: ServerEnvironment(baseURL: nginxURL), cache: nil)
    let path = try await upload(source, as: "stream-\(UUID().uuidString).jsonl", with: client)

    resetPeakResident()
    let before = currentResidentKilobytes()
    let clock = ContinuousClock()
    let started = clock.now
    let stream = try await client.stream(
        for: Endpoint<EndpointKinds.Public, Data>(path: EndpointPath(stringLiteral: path))
    )
    var decoded = 0
    var outcome = "complete"
    do {
        for try await _ in stream.jsonLines(of: Row.self) { decoded += 1 }
    } catch {
        outcome = "\(error.kind): \(error.message)"
    }
    let elapsed = clock.now - started
    let peak = peakResidentKilobytes()
    print("stream: \(written >> 20) MiB of JSON Lines from nginx, decoded as they arrive: \(outcome)")
    let rate = Double(written) / 1_048_576 / elapsed.inSecondsForBenchmark
    print(
        "  \(decoded) of \(rows) rows in \(elapsed)"
            + (outcome == "complete" ? ", \(String(format: "%.0f", rate)) MiB/s" : "")
            + ", peak RSS +\((peak - before) / 1024) MiB over \(before / 1024) MiB"
    )
}
