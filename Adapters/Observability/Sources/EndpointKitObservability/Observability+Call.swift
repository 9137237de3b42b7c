#if Observability
import EndpointKit
import Instrumentation
import Logging
import Tracing

extension Observability {
    /// The call span: `internal`, named like its client spans, parent of them (through the task-local context),
    /// with the final status; and one `warning` line when the call fails.
    public func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext) async throws
        -> TransportResponse
    {
        guard tracesCalls, let tracer = activeInstruments().tracer else {
            return try await logFailure(of: request, context: context, next: next)
        }
        // The pages of one walk are one trace: a page after the first, with no span of the caller's around it,
        // continues the first page's; each is named by the walk's route, even one reached through a `Link` URL.
        let walk = context.options.pageWalk
        let template = context.urlTemplate ?? walk?.template
        let parent = InstrumentationContext.current ?? walk?.context(as: ServiceContext.self)
        let span = tracer.startSpan(
            SemanticConventions.spanName(method: request.method, template: template),
            context: parent ?? .topLevel,
            ofKind: .internal
        )
        defer { span.end() }
        walk?.keepContext(span.context)
        if span.isRecording {
            span.updateAttributes { attributes in
                attributes[SemanticConventions.method] = SemanticConventions.method(request.method)
                if let template { attributes[SemanticConventions.urlTemplate] = template }
                if let walk { attributes[SemanticConventions.page] = walk.page }
            }
        }
        do {
            let response = try await InstrumentationContext.$current.withValue(span.context) {
                try await CallSpan.$current.withValue(span) {
                    try await logFailure(of: request, context: context, next: next)
                }
            }
            SemanticConventions.record(statusCode: response.statusCode, on: span)
            return response
        } catch {
            SemanticConventions.record(error, on: span)
            throw error
        }
    }

    /// Sends `request` on, logging a `warning` when the call throws or ends with a status of 400 or more.
    /// (Written out rather than taking a closure: this is the whole cost of the middleware when nothing is traced.)
    private func logFailure(of request: TransportRequest, context: RequestContext, next: MiddlewareNext) async throws
        -> TransportResponse
    {
        do {
            let response = try await next(request, context: context)
            if response.statusCode >= 400 {
                logger.warning(
                    "call failed: \(context.summary(of: request)) → \(response.statusCode)",
                    metadata: LogFields.call(
                        request,
                        context: context,
                        statusCode: response.statusCode,
                        errorType: "\(response.statusCode)"
                    )
                )
            }
            return response
        } catch {
            let type = SemanticConventions.errorType(of: error)
            logger.warning(
                "call failed: \(context.summary(of: request)) → \(type)",
                metadata: LogFields.call(
                    request,
                    context: context,
                    statusCode: (error as? EndpointError)?.statusCode,
                    errorType: type
                )
            )
            throw error
        }
    }
}

/// The span of the call in progress, for the cache's answers, which have no request of their own.
enum CallSpan {
    @TaskLocal static var current: (any Span)?
}
#endif
