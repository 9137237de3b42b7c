#if AsyncHTTPClient
import EndpointKit
import EndpointKitAsyncHTTPClient
import Foundation

/// Writes the files the cases read and stores them in nginx's WebDAV folder.
enum Preparation {
    /// Uploads a JSON Lines file, an event stream and a binary file of `mebibytes` each, for the `cases` named;
    /// returns a line per case: `CASE PATH COUNT`, the count being rows, events or 1.
    static func upload(nginxURL: URL, mebibytes: Int, cases: Set<String>) async throws -> [String] {
        let transport = AsyncHTTPClientTransport()
        defer { Task { try await transport.shutdown() } }
        let client = EndpointClient(environment: ServerEnvironment(baseURL: nginxURL), transport: transport, cache: nil)
        let size = mebibytes << 20
        var lines: [String] = []
        if cases.contains("json-lines") {
            let rows = try await make("rows.jsonl", size: size, client: client) { index in
                #"{"id": \#(index), "name": "item-\#(index)", "tags": ["green", "hot", "sale"]}"# + "\n"
            }
            lines.append("json-lines \(rows.path) \(rows.count)")
        }
        if cases.contains("events") {
            let events = try await make("feed.sse", size: size, client: client) { index in
                "id: \(index)\nevent: tick\ndata: {\"id\": \(index),\ndata: \"name\": \"item-\(index)\"}\n\n"
            }
            lines.append("events \(events.path) \(events.count)")
        }
        if cases.contains("download") {
            let blob = try await make("blob.bin", size: size, client: client) { index in
                String(repeating: String(UnicodeScalar(UInt8(32 + index % 90))), count: 1000)
            }
            lines.append("download \(blob.path) 1")
        }
        return lines
    }

    /// Writes a file of at least `size` bytes from numbered pieces and stores it on nginx.
    private static func make(
        _ name: String,
        size: Int,
        client: EndpointClient,
        piece: (Int) -> String
    ) async throws -> (path: String, count: Int) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ek-ahc-\(UUID().uuidString)-\(name)")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: file) }
        let handle = try FileHandle(forWritingTo: file)
        var count = 0
        var written = 0
        var block = ""
        while written < size {
            block.removeAll(keepingCapacity: true)
            for _ in 0..<10_000 {
                block += piece(count)
                count += 1
            }
            try handle.write(contentsOf: Data(block.utf8))
            written += block.utf8.count
        }
        try handle.close()
        let path = "uploads/ahc-bench-\(UUID().uuidString)-\(name)"
        _ = try await client.response(
            for: Endpoint<EndpointKinds.Public, EmptyResponse>(
                method: .put,
                path: EndpointPath(stringLiteral: path),
                body: FileBody(file)
            )
        )
        return (path, count)
    }
}
#endif
