#if Observability && AsyncHTTPClient
import AsyncHTTPClient
import EndpointKit
import EndpointKitAsyncHTTPClient
import Foundation
import InMemoryTracing
import Testing
import Tracing

/// AsyncHTTPClient's own spans, which its configuration's tracer records beside the Observability middleware's.
@Suite(.timeLimit(.minutes(1)))
struct ClientTracerTests {
    @Test("A tracer set in AsyncHTTPClient's configuration still records the client's span of each request")
    func clientTracerKept() async throws {
        let tracer = InMemoryTracer()
        var configuration = AsyncHTTPClientTransport.defaultConfiguration()
        configuration.tracing.tracer = tracer
        let transport = AsyncHTTPClientTransport(configuration: configuration)
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try Servers.httpbin()),
            transport: transport
        )

        _ = try await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "get"))
        try await transport.shutdown()

        let spans = tracer.finishedSpans.filter { $0.kind == .client }
        #expect(spans.map(\.operationName) == ["GET"])
    }
}
#endif
