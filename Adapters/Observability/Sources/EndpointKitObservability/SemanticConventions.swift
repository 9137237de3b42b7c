#if Observability
import EndpointKit
import Tracing

/// The names and rules of the OpenTelemetry HTTP client semantic conventions (stable since v1.23, as of v1.38:
/// <https://opentelemetry.io/docs/specs/semconv/http/http-spans/> and `…/http-metrics/`) that this package follows.
enum SemanticConventions {
    static let method = "http.request.method"
    static let methodOriginal = "http.request.method_original"
    static let statusCode = "http.response.status_code"
    static let resendCount = "http.request.resend_count"
    static let urlFull = "url.full"
    static let urlTemplate = "url.template"
    static let urlScheme = "url.scheme"
    static let serverAddress = "server.address"
    static let serverPort = "server.port"
    static let errorType = "error.type"
    static let protocolVersion = "network.protocol.version"
    /// Which page of a walk of a paged list a call fetched, from 1 (EndpointKit's own attribute).
    static let page = "endpointkit.page"

    static let requestDuration = "http.client.request.duration"
    static let activeRequests = "http.client.active_requests"
    /// Not in the conventions, which define no cache metric: EndpointKit's own, under its own namespace.
    static let cacheOutcomes = "endpointkit.http.client.cache.outcomes"
    static let cacheOutcome = "endpointkit.cache.outcome"
    static let cacheEvent = "endpointkit.cache"

    /// The methods the conventions know; any other is reported as `_OTHER`, its name in `method_original`.
    private static let knownMethods: Set<String> = [
        "CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE",
    ]

    /// The method as `http.request.method` reports it.
    static func method(_ method: HTTPMethod) -> String {
        knownMethods.contains(method.rawValue) ? method.rawValue : "_OTHER"
    }

    /// `{method} {url.template}`, or `{method}` alone when the route is unknown (the conventions' rule: never the
    /// full URL, whose cardinality is unbounded).
    static func spanName(method: HTTPMethod, template: String?) -> String {
        let shown = knownMethods.contains(method.rawValue) ? method.rawValue : "HTTP"
        return template.map { "\(shown) \($0)" } ?? shown
    }

    /// `error.type` of a thrown error: the ``EndpointError/Kind`` (`timedOut`, `cancelled`, …), else `_OTHER`.
    static func errorType(of error: any Error) -> String {
        if let error = error as? EndpointError { return error.kind.name }
        if error is CancellationError { return EndpointError.Kind.cancelled.name }
        return "_OTHER"
    }

    /// The status on `span`: `http.response.status_code`, and for 400 and above an error status with the code as
    /// `error.type` (the conventions: a client span's 4xx and 5xx are errors; no description, the code says it).
    static func record(statusCode: Int, on span: any Span) {
        guard span.isRecording else { return }
        span.attributes[Self.statusCode] = statusCode
        if statusCode >= 400 {
            span.attributes[errorType] = "\(statusCode)"
            span.setStatus(SpanStatus(code: .error))
        }
    }

    /// A request that ended with `error` and no response: an error status whose description is the kind.
    static func record(_ error: any Error, on span: any Span) {
        guard span.isRecording else { return }
        let type = errorType(of: error)
        span.attributes[errorType] = type
        if let status = (error as? EndpointError)?.statusCode { span.attributes[statusCode] = status }
        span.setStatus(SpanStatus(code: .error, message: type))
    }
}
#endif
