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
    @Test("Uploading a body reports bytes sent to observers, growing to the whole body", arguments: ["data", "file"])
    func uploadProgress(kind: String) async throws {
        let size = 3 << 20
        let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("progress-\(UUID().uuidString)")
        try bytes.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let log = ProgressLog()
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.nginx()), observers: [log])
        let body: any RequestBody = kind == "data" ? DataBody(bytes) : FileBody(file)
        let upload = Endpoint<EndpointKinds.Public, EmptyResponse>(
            method: .put,
            path: "uploads/progress-\(UUID().uuidString)",
            body: body
        )

        _ = try await client.response(for: upload)

        let sent = log.uploads.map(\.sent)
        #expect(!sent.isEmpty)
        #expect(sent == sent.sorted(), "progress never goes backwards")
        #expect(sent.last == Int64(size))
        #expect(log.uploads.allSatisfy { $0.expected == nil || $0.expected == Int64(size) })
    }
}
