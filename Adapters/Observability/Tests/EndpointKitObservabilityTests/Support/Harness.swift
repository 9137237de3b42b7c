#if Observability && AsyncHTTPClient
import EndpointKit
import EndpointKitAsyncHTTPClient
import EndpointKitObservability
import Foundation
import InMemoryLogging
import InMemoryTracing
import Logging
import MetricsTestKit
import Testing
import Tracing

/// The two transports every scenario runs over.
enum TransportKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case urlSession
    case asyncHTTPClient

    var testDescription: String { rawValue }

    /// One AsyncHTTPClient transport for the whole run, as a service would keep one.
    private static let sharedAHC = AsyncHTTPClientTransport()

    var transport: any Transport {
        switch self {
        case .urlSession: URLSessionTransport()
        case .asyncHTTPClient: Self.sharedAHC
        }
    }
}

/// One scenario's tracer, metrics and log, the ones the packages ship for tests, handed to ``Observability``.
struct Harness {
    let tracer = InMemoryTracer()
    let metrics = TestMetrics()
    let logs: InMemoryLogHandler
    let observability: Observability

    init(tracesCalls: Bool = true) {
        var logs = InMemoryLogHandler()
        logs.logLevel = .debug
        self.logs = logs
        observability = Observability(
            tracer: tracer,
            metricsFactory: metrics,
            logger: Logger(label: "test") { _ in logs },
            tracesCalls: tracesCalls
        )
    }

    /// A client of `baseURL` over `kind`, with the observability first and then `middleware`.
    func client(
        _ baseURL: URL,
        _ kind: TransportKind,
        middleware: [any Middleware] = [],
        defaults: RequestDefaults = RequestDefaults(),
        cache: HTTPCache? = HTTPCache()
    ) -> EndpointClient {
        EndpointClient(
            environment: ServerEnvironment(baseURL: baseURL),
            transport: kind.transport,
            defaults: defaults,
            middleware: [observability] + middleware,
            cache: cache
        )
    }

    var spans: [FinishedInMemorySpan] { tracer.finishedSpans }
    /// The spans of physical requests, in the order they ended.
    var clientSpans: [FinishedInMemorySpan] { spans.filter { $0.kind == .client } }
    /// The spans of whole calls.
    var callSpans: [FinishedInMemorySpan] { spans.filter { $0.kind == .internal } }
    var entries: [InMemoryLogHandler.Entry] { logs.entries }

    /// The value of `name` among `span`'s attributes, as text.
    static func attribute(_ name: String, of span: FinishedInMemorySpan) -> String? {
        span.attributes.get(name).map(text)
    }

    /// An attribute's value as text: `"GET"`, `"200"`.
    static func text(_ value: SpanAttribute) -> String {
        switch value {
        case .string(let text): text
        case .int64(let number): "\(number)"
        case .int32(let number): "\(number)"
        case .bool(let flag): "\(flag)"
        case .double(let number): "\(number)"
        case .stringConvertible(let value): value.description
        default: "\(value)"
        }
    }

    /// The recorded durations of `http.client.request.duration` whose dimensions include `dimensions`.
    func durations(with dimensions: [(String, String)]) -> [TestTimer] {
        metrics.timers(label: "http.client.request.duration").filter { timer in
            dimensions.allSatisfy { wanted in timer.dimensions.contains { $0 == wanted } }
        }
    }

    /// The sum of every `http.client.active_requests` meter: 0 once every request ended.
    var activeRequests: Double {
        metrics.meters(label: "http.client.active_requests").reduce(0) { $0 + ($1.lastValue ?? 0) }
    }

    /// The cache outcome counter for `outcome`.
    func cacheCount(_ outcome: String) -> Int64 {
        metrics.counters(label: "endpointkit.http.client.cache.outcomes")
            .filter { $0.dimensions.contains { $0 == ("endpointkit.cache.outcome", outcome) } }
            .reduce(0) { $0 + $1.totalValue }
    }
}

/// The loopback servers the root package's `scripts/test-servers.sh` starts; a missing one fails the test.
enum Servers {
    static func url(_ variable: String) throws -> URL {
        let value = try #require(
            ProcessInfo.processInfo.environment[variable],
            "\(variable) is not set: run these tests through the root package's scripts/test.sh, which starts the servers"
        )
        return try #require(URL(string: value))
    }
    static func httpbin() throws -> URL { try url("ENDPOINTKIT_HTTPBIN_URL") }
    static func nginx() throws -> URL { try url("ENDPOINTKIT_NGINX_URL") }
    static func fault() throws -> URL { try url("ENDPOINTKIT_FAULT_URL") }

    /// A fresh key, so that tests running at once do not share the fault server's counters.
    static func key(_ name: String = #function) -> String { "obs-\(name.prefix { $0 != "(" })-\(UUID().uuidString)" }

    private struct Tally: Decodable { var count: Int }

    /// The fault server's count for `path` once it is at least 1: a gate the server opens.
    static func awaitCount(_ path: String) async throws -> Int {
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try fault()), cache: nil)
        return try await client.response(
            for: Endpoint<EndpointKinds.Public, Tally>(path: "await/\(path: EndpointPath(stringLiteral: path))")
        ).count
    }
}

/// A JSON body the scenarios decode, whatever it holds.
struct AnyJSON: Decodable {}

/// httpbin's echo of a request: its headers, as the server saw them.
struct Echo: Decodable {
    var headers: [String: String]
}
#endif
