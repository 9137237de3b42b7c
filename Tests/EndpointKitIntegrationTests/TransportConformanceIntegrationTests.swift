import EndpointKit
import EndpointKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(1)))
struct TransportConformanceIntegrationTests {
    @Test("URLSessionTransport keeps the transport contract against a real httpbin")
    func urlSessionTransportConforms() async throws {
        let failures = await TransportConformance.check(URLSessionTransport(), httpbinURL: try TestServers.httpbin())

        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    @Test("StubTransport hands on what its handler returns unchanged: answering from a real transport, it conforms")
    func stubTransportConforms() async throws {
        let real = URLSessionTransport()
        let stub = StubTransport { request in .response(try await real.send(request, options: TransportOptions())) }

        let failures = await TransportConformance.check(stub, httpbinURL: try TestServers.httpbin())

        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        #expect(await stub.transportRequests.count > 10)
    }

    @Test("The conformance suite catches a transport that buffers bodies and follows redirects")
    func catchesABadTransport() async throws {
        /// Follows redirects and buffers every body, as `URLSession.data(for:)` does.
        struct Buffering: Transport {
            let session = URLSessionTransport(session: URLSession(configuration: .ephemeral))
            func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse {
                try await session.send(request, options: options)
            }
        }

        let failures = await TransportConformance.check(Buffering(), httpbinURL: try TestServers.httpbin())

        #expect(failures.contains { $0.hasPrefix("no redirect following") })
        #expect(failures.contains { $0.hasPrefix("streamed body") })
    }
}
