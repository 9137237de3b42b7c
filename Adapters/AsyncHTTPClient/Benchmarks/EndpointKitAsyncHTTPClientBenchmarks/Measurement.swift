#if AsyncHTTPClient
import AsyncHTTPClient
import EndpointKit
import EndpointKitAsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

private struct Row: Decodable {
    var id: Int
    var name: String
    var tags: [String]
}

private struct Tick: Decodable {
    var id: Int
    var name: String
}

/// One case on one side, in this process: its bytes, items, time and peak resident size over the baseline.
struct Measurement: CustomStringConvertible {
    var name: String
    var side: String
    var bytes: Int
    var items: Int
    var expectedItems: Int
    var seconds: Double
    var baselineKiB: Int
    var peakKiB: Int
    /// Why the case stopped early, if it did.
    var failure: String?

    var description: String {
        let peak = String(format: "%.1f", Double(peakKiB - baselineKiB) / 1024)
        let memory = "peak RSS +\(peak) MiB over \(baselineKiB / 1024) MiB"
        guard items == expectedItems else {
            return "\(name) \(side): stopped after \(items) of \(expectedItems) items in "
                + "\(String(format: "%.3f", seconds)) s (\(failure ?? "no error")), \(memory)"
        }
        let rate = Double(bytes) / 1_048_576 / seconds
        return "\(name) \(side): \(bytes >> 20) MiB, \(items) items, \(String(format: "%.3f", seconds)) s, "
            + "\(String(format: "%.0f", rate)) MiB/s, \(memory)"
    }

    /// Runs `name` on `side` (`endpointkit` or `raw`) against the file at `path`.
    static func run(case name: String, side: String, nginxURL: URL, path: String, count: Int) async throws -> Self {
        let transport = AsyncHTTPClientTransport()
        let raw = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        // `urlsession` is EndpointKit over URLSessionTransport, for contrast.
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: nginxURL),
            transport: side == "urlsession" ? URLSessionTransport() : transport,
            cache: nil
        )
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ek-ahc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = nginxURL.appendingPathComponent(path).absoluteString
        // One small request on each side first, so that the baseline includes connections and lazily loaded code.
        _ = try await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "item.json"))
        _ = try await raw.execute(
            HTTPClientRequest(url: nginxURL.appendingPathComponent("item.json").absoluteString),
            timeout: .seconds(10)
        ).body.collect(upTo: 1 << 20)

        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        let baseline = residentKilobytes("VmRSS:")
        let clock = ContinuousClock()
        let started = clock.now
        var items = 0
        var bytes = 0
        var failure: (any Error)?
        switch (name, side == "raw") {
        case ("json-lines", false):
            let stream = try await client.stream(for: Endpoint<EndpointKinds.Public, Data>(path: "\(path)"))
            do {
                for try await _ in stream.jsonLines(of: Row.self) { items += 1 }
            } catch {
                failure = error
            }
        case ("json-lines", _):
            let decoder = JSONDecoder()
            bytes = try await rawLines(url, raw) { line in
                _ = try decoder.decode(Row.self, from: line)
                items += 1
            }
        case ("events", false):
            let decoder = JSONDecoder()
            do {
                let events = try await client.stream(
                    for: Endpoint<EndpointKinds.Public, ServerSentEvents>(path: "\(path)")
                )
                for try await event in events {
                    _ = try decoder.decode(Tick.self, from: Data(event.data.utf8))
                    items += 1
                    // nginx sends the file once; stop before the stream would reconnect.
                    if items == count { break }
                }
            } catch {
                failure = error
            }
        case ("events", _):
            // The same work by hand: the data lines of each event joined and decoded.
            let decoder = JSONDecoder()
            var data = Data()
            bytes = try await rawLines(url, raw) { line in
                if line.isEmpty {
                    _ = try decoder.decode(Tick.self, from: data)
                    data.removeAll(keepingCapacity: true)
                    items += 1
                } else if line.starts(with: Data("data: ".utf8)) {
                    if !data.isEmpty { data.append(UInt8(ascii: "\n")) }
                    data.append(line.dropFirst(6))
                }
            }
        case ("download", false):
            let destination = folder.appendingPathComponent("file.bin")
            _ = try await client.download(for: Endpoint<EndpointKinds.Public, URL>(path: "\(path)"), to: destination)
                .result()
            items = 1
        default:
            let destination = folder.appendingPathComponent("file.bin")
            _ = FileManager.default.createFile(atPath: destination.path, contents: nil)
            let handle = try FileHandle(forWritingTo: destination)
            let response = try await raw.execute(HTTPClientRequest(url: url), timeout: .seconds(600))
            for try await buffer in response.body { try handle.write(contentsOf: Data(buffer: buffer)) }
            try handle.close()
            items = 1
        }
        let elapsed = clock.now - started
        let peak = residentKilobytes("VmHWM:")
        if name == "download" {
            let file = folder.appendingPathComponent("file.bin")
            bytes = (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.intValue ?? 0
        } else if bytes == 0 {
            let head = try await raw.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
            bytes = Int(head.headers.first(name: "content-length") ?? "") ?? 0
        }
        try? FileManager.default.removeItem(at: folder)
        try await transport.shutdown()
        try await raw.shutdown()
        return Measurement(
            name: name,
            side: side,
            bytes: bytes,
            items: items,
            expectedItems: count,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
            baselineKiB: baseline,
            peakKiB: peak,
            failure: failure.map { ($0 as? EndpointError)?.message ?? "\($0)" }
        )
    }

    /// Reads `url` with raw AsyncHTTPClient, hands each line (without its line break) to `line`, and returns the
    /// bytes read.
    private static func rawLines(_ url: String, _ raw: HTTPClient, _ line: (Data) throws -> Void) async throws -> Int {
        let response = try await raw.execute(HTTPClientRequest(url: url), timeout: .seconds(600))
        var pending = Data()
        var total = 0
        for try await buffer in response.body {
            total += buffer.readableBytes
            pending.append(contentsOf: buffer.readableBytesView)
            var start = pending.startIndex
            while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                try line(pending[start..<newline])
                start = newline + 1
            }
            pending = Data(pending[start...])
        }
        return total
    }
}

/// A size in KiB from `/proc/self/status`: `VmRSS:` now, `VmHWM:` at its peak.
func residentKilobytes(_ field: String) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix(field) {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
    return -1
}
#endif
