import Foundation
import Testing

@testable import EndpointKit

/// The internal seam downloads use: URLSessionTransport hands a streamed body to a writer chosen at the head.
@Suite(.timeLimit(.minutes(1)))
struct BodySinkIntegrationTests {
    @Test("URLSessionTransport asks for a body's writer once per head, and every byte goes to it")
    func writerChosenOnce() async throws {
        let asked = Locked(0)
        let written = Locked(Data())
        let request = TransportRequest(url: try TestServers.nginx().appendingPathComponent("user-100k.json"))
        let write: @Sendable (Data) throws -> Void = { chunk in written.withLock { $0.append(chunk) } }
        let sink = BodySink { status, _ in
            asked.withLock { $0 += 1 }
            return status == 200 ? write : nil
        }

        let response = try await URLSessionTransport().send(request, options: TransportOptions(body: .write(to: sink)))
        try await response.body.drain(into: { _ in Issue.record("a chunk reached the reader, not the writer") })

        #expect(asked.withLock { $0 } == 1)
        #expect(written.withLock { $0.count } == response.body.length)
    }
}
