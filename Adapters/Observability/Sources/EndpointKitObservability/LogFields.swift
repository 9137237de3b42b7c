#if Observability
import EndpointKit
import Logging

/// The metadata of the log lines, built only when a line is let out. Every value is redacted as the client
/// redacts: the URL by its sensitive query names, never a header value or a body.
enum LogFields {
    /// One exchange: the record's redacted fields, and the trace it belongs to.
    static func exchange(_ record: ExchangeRecord, template: String?, trace: TraceParent?) -> Logger.Metadata {
        var fields: Logger.Metadata = [
            SemanticConventions.method: "\(record.method)",
            SemanticConventions.urlFull: "\(record.redactedURL)",
            "endpointkit.attempt": "\(record.attempt)",
            "endpointkit.hop": "\(record.hop)",
            "endpointkit.duration_ms": "\((record.duration.secondsValue * 1_000_000).rounded() / 1_000)",
            "endpointkit.source": "\(record.source)",
        ]
        if let template { fields[SemanticConventions.urlTemplate] = "\(template)" }
        if let status = record.statusCode { fields[SemanticConventions.statusCode] = "\(status)" }
        if let error = record.error {
            fields[SemanticConventions.errorType] = "\(error.kind.name)"
        } else if let status = record.statusCode, status >= 400 {
            fields[SemanticConventions.errorType] = "\(status)"
        }
        if let trace {
            fields["trace_id"] = "\(trace.traceID)"
            fields["span_id"] = "\(trace.spanID)"
        }
        return fields
    }

    /// A failed call: its request, and the status or the kind of error it ended with.
    static func call(
        _ request: TransportRequest,
        context: RequestContext,
        statusCode: Int?,
        errorType: String
    ) -> Logger.Metadata {
        var fields: Logger.Metadata = [
            SemanticConventions.method: "\(request.method)",
            SemanticConventions.urlFull: "\(context.summary(of: request).redactedURL)",
            SemanticConventions.errorType: "\(errorType)",
            "endpointkit.attempts": "\(context.attempt)",
        ]
        if let template = context.urlTemplate { fields[SemanticConventions.urlTemplate] = "\(template)" }
        if let statusCode { fields[SemanticConventions.statusCode] = "\(statusCode)" }
        return fields
    }
}

/// The trace and span IDs of a W3C `traceparent` header (`00-{32 hex}-{16 hex}-{2 hex}`).
struct TraceParent: Sendable, Equatable {
    var traceID: String
    var spanID: String

    init?(_ header: String?) {
        guard let header else { return nil }
        let parts = header.split(separator: "-")
        guard parts.count == 4, parts[1].count == 32, parts[2].count == 16 else { return nil }
        traceID = String(parts[1])
        spanID = String(parts[2])
    }
}

extension Duration {
    /// The duration in seconds, as the metrics and logs report it.
    var secondsValue: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
#endif
