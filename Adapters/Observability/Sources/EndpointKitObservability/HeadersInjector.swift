#if Observability
import EndpointKit
import Instrumentation

/// Writes a trace context into a request's headers: what the bootstrapped instrument propagates (W3C
/// `traceparent` and `tracestate` with swift-otel) replaces any value of the same name.
struct HeadersInjector: Injector {
    func inject(_ value: String, forKey key: String, into headers: inout HTTPHeaders) {
        headers[HTTPHeaders.Name(key)] = value
    }
}
#endif
