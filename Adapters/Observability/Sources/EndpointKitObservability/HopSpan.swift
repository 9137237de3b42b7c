import EndpointKit
import Instrumentation
import Logging
import Tracing

/// One physical request's client span, metrics and log line, ended with its ``ExchangeRecord``.
struct HopSpan: HopTracker {
    let span: any Span
    let metrics: HTTPMetrics
    let logger: Logger
    let template: String?
    /// The trace context that went out with the request, for the log line.
    let trace: TraceParent?

    func headReceived(statusCode: Int, headers: HTTPHeaders) {
        SemanticConventions.record(statusCode: statusCode, on: span)
    }

    func ended(_ record: ExchangeRecord) {
        if let error = record.error { SemanticConventions.record(error, on: span) }
        metrics.ended(record)
        if logger.logLevel <= .debug {
            // Under the span's context, so that a metadata provider (swift-otel's `.otel`) sees this span.
            InstrumentationContext.$current.withValue(span.context) {
                logger.debug("\(record)", metadata: LogFields.exchange(record, template: template, trace: trace))
            }
        }
        span.end()
    }
}
