#if Observability && AsyncHTTPClient
import EndpointKit
import EndpointKitObservability
import Foundation
import InMemoryLogging
import InMemoryTracing
import Logging
import MetricsTestKit
import Testing
import Tracing

/// Whole calls as OpenTelemetry's HTTP client conventions describe them, over both transports: a call span, one
/// client span per request on the wire, the conventions' attributes, metrics and log lines.
@Suite(.timeLimit(.minutes(1)))
struct CallScenarioTests {
    @Test(
        "A success: a call span, one client span under it with the conventions' attributes, a duration, a debug line; the upstream continues the trace",
        arguments: TransportKind.allCases
    )
    func success(kind: TransportKind) async throws {
        let harness = Harness()
        let base = try Servers.httpbin()
        let client = harness.client(base, kind)
        let endpoint = Endpoint<EndpointKinds.Public, Echo>(
            path: "anything/\(42)",
            queryItems: [URLQueryItem(name: "q", value: "tea")]
        )

        let echo = try await client.response(for: endpoint)

        let call = try #require(harness.callSpans.first)
        let hop = try #require(harness.clientSpans.first)
        #expect(harness.spans.count == 2)
        #expect(call.operationName == "GET /anything/{id}")
        #expect(hop.operationName == "GET /anything/{id}")
        #expect(hop.parentSpanID == call.spanID && hop.traceID == call.traceID)
        #expect(Harness.attribute("http.request.method", of: hop) == "GET")
        #expect(Harness.attribute("url.full", of: hop) == "\(base.absoluteString)/anything/42?q=tea")
        #expect(Harness.attribute("url.template", of: hop) == "/anything/{id}")
        #expect(Harness.attribute("server.address", of: hop) == base.host)
        #expect(Harness.attribute("server.port", of: hop) == "\(base.port ?? 0)")
        #expect(Harness.attribute("http.response.status_code", of: hop) == "200")
        #expect(Harness.attribute("error.type", of: hop) == nil)
        #expect(Harness.attribute("http.request.resend_count", of: hop) == nil)
        // AsyncHTTPClient says which HTTP version answered; URLSession on Linux does not, and nothing is made up.
        #expect(Harness.attribute("network.protocol.version", of: hop) == (kind == .asyncHTTPClient ? "1.1" : nil))
        #expect(hop.status == nil && call.status == nil)
        // The bootstrapped instrument (here the in-memory one) wrote the client span's context into the request.
        #expect(echo.headers["In-Memory-Trace-Id"] == hop.traceID)
        #expect(echo.headers["In-Memory-Span-Id"] == hop.spanID)
        let durations = harness.durations(with: [
            ("http.request.method", "GET"), ("http.response.status_code", "200"), ("url.template", "/anything/{id}"),
            ("server.address", base.host ?? ""), ("url.scheme", "http"),
        ])
        #expect(durations.count == 1 && durations.first?.values.count == 1)
        #expect(harness.activeRequests == 0)
        let debug = harness.entries.filter { $0.level == .debug }
        #expect(debug.count == 1)
        #expect(debug.first?.metadata["url.template"] == "/anything/{id}")
        #expect(debug.first?.metadata["http.response.status_code"] == "200")
        #expect(!harness.entries.contains { $0.level >= .warning })
    }

    @Test(
        "A 404: the client span and the call span are errors with error.type 404, and the call logs one warning",
        arguments: TransportKind.allCases
    )
    func notFound(kind: TransportKind) async throws {
        let harness = Harness()
        let client = harness.client(try Servers.httpbin(), kind)

        await #expect(throws: EndpointError.self) {
            try await client.response(for: Endpoint<EndpointKinds.Public, AnyJSON>(path: "status/\(404)"))
        }

        let hop = try #require(harness.clientSpans.first)
        #expect(harness.clientSpans.count == 1)
        #expect(hop.operationName == "GET /status/{id}")
        #expect(hop.status?.code == .error)
        #expect(Harness.attribute("error.type", of: hop) == "404")
        #expect(Harness.attribute("http.response.status_code", of: hop) == "404")
        #expect(harness.callSpans.first?.status?.code == .error)
        let warnings = harness.entries.filter { $0.level == .warning }
        #expect(warnings.count == 1)
        #expect(warnings.first?.metadata["error.type"] == "404")
        #expect(harness.durations(with: [("error.type", "404")]).count == 1)
    }

    @Test(
        "A 503 retried twice: three client spans under one call span, resend_count 1 and 2 on the resends",
        arguments: TransportKind.allCases
    )
    func retried(kind: TransportKind) async throws {
        let harness = Harness()
        let retry = Retry(RetryPolicy(maxAttempts: 3, baseDelay: .zero))
        let client = harness.client(try Servers.httpbin(), kind, middleware: [retry])

        await #expect(throws: EndpointError.self) {
            try await client.response(for: Endpoint<EndpointKinds.Public, AnyJSON>(path: "status/\(503)"))
        }

        let call = try #require(harness.callSpans.first)
        let hops = harness.clientSpans
        #expect(harness.callSpans.count == 1)
        #expect(hops.count == 3)
        #expect(hops.map { Harness.attribute("http.request.resend_count", of: $0) } == [nil, "1", "2"])
        #expect(hops.allSatisfy { $0.parentSpanID == call.spanID && $0.status?.code == .error })
        #expect(hops.allSatisfy { Harness.attribute("error.type", of: $0) == "503" })
        #expect(harness.durations(with: [("http.response.status_code", "503")]).reduce(0) { $0 + $1.values.count } == 3)
        #expect(harness.entries.filter { $0.level == .warning }.count == 1)
        #expect(harness.entries.filter { $0.level == .debug }.count == 3)
    }

    @Test(
        "A redirect to another origin: each hop is a client span at its own server; the hop after it has no template",
        arguments: TransportKind.allCases
    )
    func redirect(kind: TransportKind) async throws {
        let harness = Harness()
        let base = try Servers.httpbin()
        let target = try Servers.nginx()
        let client = harness.client(base, kind)
        let endpoint = Endpoint<EndpointKinds.Public, Data>(
            path: "redirect-to",
            queryItems: [
                URLQueryItem(name: "url", value: target.appendingPathComponent("missing-\(UUID())").absoluteString)
            ]
        )

        _ = try? await client.response(for: endpoint)

        let call = try #require(harness.callSpans.first)
        let hops = harness.clientSpans
        try #require(hops.count == 2)
        #expect(hops.map(\.operationName) == ["GET /redirect-to", "GET"])
        #expect(hops.map { Harness.attribute("server.port", of: $0) } == ["\(base.port ?? 0)", "\(target.port ?? 0)"])
        #expect(hops.map { Harness.attribute("http.response.status_code", of: $0) } == ["302", "404"])
        #expect(hops[0].status == nil)
        #expect(Harness.attribute("http.request.resend_count", of: hops[1]) == "1")
        #expect(Harness.attribute("url.template", of: hops[1]) == nil)
        #expect(hops.allSatisfy { $0.parentSpanID == call.spanID })
    }

    @Test(
        "A token refresh: the 401 and the replay are two client spans; neither token appears anywhere",
        arguments: TransportKind.allCases
    )
    func tokenRefresh(kind: TransportKind) async throws {
        let harness = Harness()
        let auth = BearerAuthentication(token: { AccessToken("stale") }, refresh: { _ in AccessToken("fresh") })
        let client = harness.client(try Servers.fault(), kind, middleware: [auth])
        let key = Servers.key()

        _ = try await client.response(for: Endpoint<EndpointKinds.Authenticated, AnyJSON>(path: "auth/\(key)"))

        let hops = harness.clientSpans
        #expect(hops.map { Harness.attribute("http.response.status_code", of: $0) } == ["401", "200"])
        #expect(hops.map { Harness.attribute("http.request.resend_count", of: $0) } == [nil, "1"])
        #expect(harness.callSpans.count == 1 && harness.callSpans.first?.status == nil)
        let everything = "\(harness.spans.map(\.attributes))\(harness.entries)"
        #expect(!everything.contains("Bearer") && !everything.contains("stale") && !everything.contains("\"fresh"))
    }

    @Test(
        "A refused connection: error.type transportFailed on both spans, a warning, nothing left active",
        arguments: TransportKind.allCases
    )
    func refused(kind: TransportKind) async throws {
        let harness = Harness()
        let client = harness.client(URL(string: "http://127.0.0.1:1")!, kind)

        await #expect(throws: EndpointError.self) {
            try await client.response(for: Endpoint<EndpointKinds.Public, AnyJSON>(path: "items/\(1)"))
        }

        let hop = try #require(harness.clientSpans.first)
        #expect(Harness.attribute("error.type", of: hop) == "transportFailed")
        #expect(Harness.attribute("server.port", of: hop) == "1")
        #expect(hop.status?.code == .error)
        #expect(harness.callSpans.first.map { Harness.attribute("error.type", of: $0) } == "transportFailed")
        #expect(harness.activeRequests == 0)
        #expect(harness.entries.filter { $0.level == .warning }.first?.metadata["error.type"] == "transportFailed")
    }
}
#endif
