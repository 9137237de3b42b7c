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

private struct Versioned: Decodable { var version: Int }

/// The cache, failures mid-call, bodies that are not read whole, and where spans sit in the caller's trace,
/// over both transports.
@Suite(.timeLimit(.minutes(1)))
struct MoreScenarioTests {
    @Test(
        "A cache hit sends nothing: no client span, an event on the call span, a hit counted and logged",
        arguments: TransportKind.allCases
    )
    func cacheHit(kind: TransportKind) async throws {
        let harness = Harness()
        let client = harness.client(try Servers.fault(), kind)
        let endpoint = Endpoint<EndpointKinds.Public, Versioned>(path: "cached/\(Servers.key())")

        _ = try await client.response(for: endpoint)
        _ = try await client.response(for: endpoint)

        #expect(harness.clientSpans.count == 1)
        let calls = harness.callSpans
        try #require(calls.count == 2)
        #expect(calls.map { $0.events.map(\.name) } == [["endpointkit.cache"], ["endpointkit.cache"]])
        #expect(
            calls.map { $0.events.first?.attributes.get("endpointkit.cache.outcome").map(Harness.text) } == [
                "miss", "hit",
            ]
        )
        #expect(harness.cacheCount("miss") == 1 && harness.cacheCount("hit") == 1)
        #expect(harness.entries.contains { $0.level == .debug && $0.metadata["endpointkit.cache.outcome"] == "hit" })
    }

    @Test(
        "A 304: the revalidation is a client span with status 304, not an error; the call span notes it revalidated",
        arguments: TransportKind.allCases
    )
    func revalidated(kind: TransportKind) async throws {
        let harness = Harness()
        let client = harness.client(try Servers.fault(), kind)
        let endpoint = Endpoint<EndpointKinds.Public, Versioned>(
            path: "cached/\(Servers.key())",
            queryItems: [URLQueryItem(name: "cc", value: "no-cache")]
        )

        _ = try await client.response(for: endpoint)
        _ = try await client.response(for: endpoint)

        let hops = harness.clientSpans
        #expect(hops.map { Harness.attribute("http.response.status_code", of: $0) } == ["200", "304"])
        #expect(hops.allSatisfy { $0.status == nil })
        #expect(harness.cacheCount("revalidated") == 1)
        #expect(harness.callSpans.last?.status == nil)
    }

    @Test(
        "A timeout: error.type timedOut on the client span, the call span and the duration; a warning; nothing active",
        arguments: TransportKind.allCases
    )
    func timeout(kind: TransportKind) async throws {
        let harness = Harness()
        var defaults = RequestDefaults()
        defaults.timeout = .milliseconds(300)
        let client = harness.client(try Servers.fault(), kind, defaults: defaults)

        await #expect(throws: EndpointError.self) {
            try await client.response(for: Endpoint<EndpointKinds.Public, AnyJSON>(path: "hold/\(Servers.key())"))
        }

        let hop = try #require(harness.clientSpans.first)
        #expect(Harness.attribute("error.type", of: hop) == "timedOut")
        #expect(hop.status?.code == .error)
        #expect(harness.callSpans.first.map { Harness.attribute("error.type", of: $0) } == "timedOut")
        #expect(harness.durations(with: [("error.type", "timedOut")]).count == 1)
        #expect(harness.entries.filter { $0.level == .warning }.first?.metadata["error.type"] == "timedOut")
        #expect(harness.activeRequests == 0)
    }

    @Test(
        "A cancelled call: its client span ends with error.type cancelled, and nothing is left active",
        arguments: TransportKind.allCases
    )
    func cancelled(kind: TransportKind) async throws {
        let harness = Harness()
        let client = harness.client(try Servers.fault(), kind)
        let key = Servers.key()
        let call = Task {
            try await client.response(for: Endpoint<EndpointKinds.Public, AnyJSON>(path: "hold/\(key)"))
        }
        _ = try await Servers.awaitCount("hold/\(key)")

        call.cancel()
        let result = await call.result

        #expect((try? result.get()) == nil)
        let hop = try #require(harness.clientSpans.first)
        #expect(Harness.attribute("error.type", of: hop) == "cancelled")
        #expect(harness.callSpans.first.map { Harness.attribute("error.type", of: $0) } == "cancelled")
        #expect(harness.activeRequests == 0)
    }

    @Test(
        "A stream: its client span ends when the head arrives, with the status; the body is the caller's to read",
        arguments: TransportKind.allCases
    )
    func stream(kind: TransportKind) async throws {
        let harness = Harness()
        let client = harness.client(try Servers.httpbin(), kind)

        let stream = try await client.stream(for: Endpoint<EndpointKinds.Public, Data>(path: "stream/\(3)"))
        #expect(harness.clientSpans.count == 1)
        var lines = 0
        for try await _ in stream.lines { lines += 1 }

        #expect(lines == 3)
        let hop = try #require(harness.clientSpans.first)
        #expect(hop.operationName == "GET /stream/{id}")
        #expect(Harness.attribute("http.response.status_code", of: hop) == "200")
        #expect(harness.activeRequests == 0)
    }

    @Test(
        "A download in parts: one client span per part, each a 206, counted as resends of one call",
        arguments: TransportKind.allCases
    )
    func downloadInParts(kind: TransportKind) async throws {
        let harness = Harness()
        var defaults = RequestDefaults()
        defaults.downloadPartSize = 256 * 1024
        let client = harness.client(try Servers.fault(), kind, defaults: defaults)
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("obs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: destination) }

        _ = try await client.download(
            for: Endpoint<EndpointKinds.Public, Data>(path: "file/\(Servers.key())/\(1)"),
            to: destination
        ).result()

        let hops = harness.clientSpans
        #expect(hops.count == 4)
        #expect(hops.allSatisfy { Harness.attribute("http.response.status_code", of: $0) == "206" })
        #expect(hops.allSatisfy { $0.operationName == "GET /file/{id}/{id}" })
        #expect(harness.activeRequests == 0)
    }

    @Test(
        "Pages: one trace per walk, one call and one client span per page, each named by the walk's route",
        arguments: TransportKind.allCases
    )
    func pages(kind: TransportKind) async throws {
        let harness = Harness()
        let client = harness.client(try Servers.fault(), kind)
        let first = Endpoint<EndpointKinds.Public, [AnyJSON]>(
            path: "pages/\(Servers.key())",
            queryItems: [URLQueryItem(name: "total", value: "90")]
        )

        var count = 0
        for try await _ in client.pages(for: first, next: .link) { count += 1 }

        let calls = harness.callSpans
        #expect(count == 3 && calls.count == 3)
        // A page reached by its Link has no route of its own: it is named by the walk's, and continues its trace.
        #expect(harness.clientSpans.map(\.operationName) == ["GET /pages/{id}", "GET /pages/{id}", "GET /pages/{id}"])
        #expect(calls.allSatisfy { $0.operationName == "GET /pages/{id}" })
        #expect(Set(calls.map(\.traceID)).count == 1, "one trace per walk")
        #expect(calls.map { Harness.attribute("endpointkit.page", of: $0) } == ["1", "2", "3"])
    }

    @Test(
        "A call inside the caller's span is its child, and so is every client span under it",
        arguments: TransportKind.allCases
    )
    func callerSpan(kind: TransportKind) async throws {
        let harness = Harness()
        let client = harness.client(try Servers.httpbin(), kind)

        try await harness.tracer.withSpan("handler") { _ in
            _ = try await client.response(for: Endpoint<EndpointKinds.Public, AnyJSON>(path: "anything/\(1)"))
        }

        let handler = try #require(harness.spans.first { $0.operationName == "handler" })
        let call = try #require(harness.callSpans.first { $0.operationName != "handler" })
        #expect(call.parentSpanID == handler.spanID)
        #expect(harness.clientSpans.first?.parentSpanID == call.spanID)
        #expect(harness.clientSpans.first?.traceID == handler.traceID)
    }

    @Test("Without call spans, the client spans are children of the caller's span", arguments: TransportKind.allCases)
    func withoutCallSpans(kind: TransportKind) async throws {
        let harness = Harness(tracesCalls: false)
        let client = harness.client(try Servers.httpbin(), kind)

        try await harness.tracer.withSpan("handler") { _ in
            _ = try await client.response(for: Endpoint<EndpointKinds.Public, AnyJSON>(path: "anything/\(1)"))
        }

        let handler = try #require(harness.spans.first { $0.operationName == "handler" })
        #expect(harness.spans.count == 2)
        #expect(harness.clientSpans.first?.parentSpanID == handler.spanID)
    }

    @Test(
        "With no tracer bootstrapped nothing is propagated and no span recorded, yet the metrics are kept",
        arguments: TransportKind.allCases
    )
    func noTracer(kind: TransportKind) async throws {
        let metrics = TestMetrics()
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try Servers.httpbin()),
            transport: kind.transport,
            middleware: [Observability(metricsFactory: metrics)]
        )

        let echo = try await client.response(for: Endpoint<EndpointKinds.Public, Echo>(path: "anything/\(1)"))

        #expect(!echo.headers.keys.contains { $0.lowercased().contains("trace") })
        #expect(metrics.timers(label: "http.client.request.duration").count == 1)
    }
}
#endif
