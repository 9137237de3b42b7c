#if AsyncHTTPClient
import EndpointKit
import EndpointKitAsyncHTTPClient
import EndpointKitTesting
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1)))
struct ConformanceTests {
    @Test("AsyncHTTPClientTransport keeps the transport contract against a real httpbin")
    func conforms() async throws {
        let transport = AsyncHTTPClientTransport()

        let failures = await TransportConformance.check(transport, httpbinURL: try TestServers.httpbin())

        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        try await transport.shutdown()
    }
}
#endif
