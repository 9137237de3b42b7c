#if Observability
import EndpointKit
import Instrumentation
import Logging
import Tracing

/// One physical request's client span, metrics and log line, ended with its ``ExchangeRecord``.
struct HopSpan: HopTracker {
    /// The client span, when a tracer is bootstrapped.
    let span: (any Span)?
    /// The metrics, when a backend is bootstrapped.
    let metrics: HTTPMetrics?
    /// The logger, when it lets `debug` lines out.
    let logger: Logger?
    let template: String?
    /// The trace context that went out with the request, for the log line.
    let trace: TraceParent?

    func headReceived(statusCode: Int, headers: HTTPHeaders) {
        headReceived(statusCode: statusCode, headers: headers, protocolVersion: nil)
    }

    func headReceived(statusCode: Int, headers: HTTPHeaders, protocolVersion: String?) {
        guard let span else { return }
        SemanticConventions.record(statusCode: statusCode, on: span)
        if let protocolVersion { span.attributes[SemanticConventions.protocolVersion] = protocolVersion }
    }

    func ended(_ record: ExchangeRecord) {
        if let span, let error = record.error { SemanticConventions.record(error, on: span) }
        metrics?.ended(record)
        if let logger {
            let line = {
                logger.debug("\(record)", metadata: LogFields.exchange(record, template: template, trace: trace))
            }
            // Under the span's context, so that a metadata provider (swift-otel's `.otel`) sees this span.
            if let span { InstrumentationContext.$current.withValue(span.context, operation: line) } else { line() }
        }
        span?.end()
    }
}
#endif
