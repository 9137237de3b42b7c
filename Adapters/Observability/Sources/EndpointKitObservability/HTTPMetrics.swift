#if Observability
import EndpointKit
import Metrics

/// The conventions' client metrics for one physical request: `http.client.active_requests` while it is on the
/// wire, and `http.client.request.duration` (seconds) when it ends. swift-metrics leaves a histogram's buckets to
/// the backend: the conventions advise `[0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5,
/// 10]` seconds; set them where the backend is bootstrapped (swift-otel and swift-prometheus both take them).
struct HTTPMetrics: Sendable {
    let factory: any MetricsFactory
    /// method, server.address, server.port, url.scheme: the dimensions both metrics share.
    let dimensions: [(String, String)]
    let template: String?
    /// `http.client.active_requests` for these dimensions, made once per request.
    let active: Meter

    init(factory: any MetricsFactory, method: HTTPMethod, scheme: String?, exchange: ExchangeStart, template: String?) {
        self.factory = factory
        var dimensions = [(SemanticConventions.method, SemanticConventions.method(method))]
        if let address = exchange.serverAddress { dimensions.append((SemanticConventions.serverAddress, address)) }
        if let port = exchange.serverPort { dimensions.append((SemanticConventions.serverPort, "\(port)")) }
        if let scheme { dimensions.append((SemanticConventions.urlScheme, scheme)) }
        self.dimensions = dimensions
        self.template = template
        active = Meter(label: SemanticConventions.activeRequests, dimensions: dimensions, factory: factory)
    }

    func started() { active.increment() }

    /// Records the duration with the outcome's dimensions, and the request as no longer active.
    func ended(_ record: ExchangeRecord) {
        active.decrement()
        var outcome = dimensions
        if let template { outcome.append((SemanticConventions.urlTemplate, template)) }
        if let status = record.statusCode { outcome.append((SemanticConventions.statusCode, "\(status)")) }
        if let error = record.error {
            outcome.append((SemanticConventions.errorType, error.kind.name))
        } else if let status = record.statusCode, status >= 400 {
            outcome.append((SemanticConventions.errorType, "\(status)"))
        }
        Timer(
            label: SemanticConventions.requestDuration,
            dimensions: outcome,
            preferredDisplayUnit: .seconds,
            factory: factory
        )
        .recordNanoseconds(Int64(record.duration.secondsValue * 1e9))
    }

    /// Counts one answer of the cache.
    static func countCache(_ outcome: CacheOutcome, method: HTTPMethod, template: String?, factory: any MetricsFactory)
    {
        var dimensions = [
            (SemanticConventions.method, SemanticConventions.method(method)),
            (SemanticConventions.cacheOutcome, outcome.rawValue),
        ]
        if let template { dimensions.append((SemanticConventions.urlTemplate, template)) }
        Counter(label: SemanticConventions.cacheOutcomes, dimensions: dimensions, factory: factory).increment()
    }
}
#endif
