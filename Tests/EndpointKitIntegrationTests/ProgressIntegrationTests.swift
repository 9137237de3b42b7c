import EndpointKit
import Foundation
import Testing

/// Collects the progress events of calls.
final class ProgressLog: ExchangeObserver, @unchecked Sendable {
    // Safe because every access to `sent` holds `lock`.
    private var sent: [(sent: Int64, expected: Int64?)] = []
    private let lock = NSLock()

    func observe(_ event: ExchangeEvent) {
        guard case .bytesSent(_, let count, let expected) = event else { return }
        lock.lock()
        sent.append((count, expected))
        lock.unlock()
    }

    var uploads: [(sent: Int64, expected: Int64?)] {
        lock.lock()
        defer { lock.unlock() }
        return sent
    }
}

@Suite(.timeLimit(.minutes(1)))
struct ProgressIntegrationTests {
    @Test(
        "Uploading a body reports bytes sent to observers, growing to the whole body",
        arguments: ["data", "file", "multipart", "stream"]
    )
    func uploadProgress(kind: String) async throws {
        let size = 3 << 20
        let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("progress-\(UUID().uuidString)")
        try bytes.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let log = ProgressLog()
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.nginx()), observers: [log])
        let body: any RequestBody =
            switch kind {
            case "data": DataBody(bytes)
            case "file": FileBody(file)
            case "multipart": MultipartBody([.field("note", "x"), .file("upload", fileURL: file)])
            default: StreamBody { try #require(InputStream(url: file)) }
            }
        let upload = Endpoint<EndpointKinds.Public, EmptyResponse>(
            method: .put,
            path: "uploads/progress-\(UUID().uuidString)",
            body: body
        )

        _ = try await client.response(for: upload)

        let sent = log.uploads.map(\.sent)
        let stored = try await client.rawResponse(
            for: Endpoint<EndpointKinds.Public, Data>(path: upload.path),
            using: ()
        )
        // A multipart body is the file framed by its boundaries: a little larger than the file.
        let total = Int64(kind == "multipart" ? stored.bytes.count : size)
        #expect(!sent.isEmpty)
        #expect(sent == sent.sorted(), "progress never goes backwards")
        #expect(sent.last == total)
        #expect(log.uploads.allSatisfy { $0.expected == nil || $0.expected == total })
        #expect(kind != "multipart" || stored.bytes.count > size)
        #expect(kind == "multipart" || stored.bytes == bytes)
    }
}
