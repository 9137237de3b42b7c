#if Observability
import EndpointKit
import Foundation
import Instrumentation
import Logging
import Metrics
import Tracing

extension Observability {
    /// A request goes on the wire: its client span starts, a child of the call's (or the caller's) span; the
    /// trace context goes into its headers; it counts as active until it ends.
    public func willSend(_ request: inout TransportRequest, _ exchange: ExchangeStart) -> (any HopTracker)? {
        let (tracer, propagator) = activeInstruments()
        if let propagator, let context = InstrumentationContext.current {
            // No tracer, but an instrument that propagates: the caller's context goes on.
            propagator.inject(context, into: &request.headers, using: HeadersInjector())
        }
        let factory = currentMetricsFactory
        let measuring = !(factory is NOOPMetricsHandler)
        let logging = logger.logLevel <= .debug
        // Nothing bootstrapped, nothing to log: nothing is built, and the call costs next to nothing more.
        guard tracer != nil || measuring || logging else { return nil }
        // The route names the endpoint's own request; a redirect goes elsewhere.
        let template =
            exchange.hop == 0 ? exchange.context.urlTemplate ?? exchange.context.options.pageWalk?.template : nil
        var span: (any Span)?
        if let tracer {
            let started = tracer.startSpan(
                SemanticConventions.spanName(method: request.method, template: template),
                context: InstrumentationContext.current ?? .topLevel,
                ofKind: .client
            )
            if started.isRecording { describe(request, exchange, template: template, on: started) }
            tracer.inject(started.context, into: &request.headers, using: HeadersInjector())
            span = started
        }
        let metrics =
            measuring
            ? HTTPMetrics(
                factory: factory,
                method: request.method,
                scheme: request.url.scheme,
                exchange: exchange,
                template: template
            )
            : nil
        metrics?.started()
        return HopSpan(
            span: span,
            metrics: metrics,
            logger: logging ? logger : nil,
            template: template,
            trace: TraceParent(request.headers["traceparent"])
        )
    }

    /// The span's attributes that are known before the request is sent.
    private func describe(_ request: TransportRequest, _ exchange: ExchangeStart, template: String?, on span: any Span)
    {
        span.updateAttributes { attributes in
            let method = SemanticConventions.method(request.method)
            attributes[SemanticConventions.method] = method
            if method == "_OTHER" { attributes[SemanticConventions.methodOriginal] = request.method.rawValue }
            attributes[SemanticConventions.urlFull] = exchange.request.redactedURL
            if let template { attributes[SemanticConventions.urlTemplate] = template }
            if let address = exchange.serverAddress { attributes[SemanticConventions.serverAddress] = address }
            if let port = exchange.serverPort { attributes[SemanticConventions.serverPort] = port }
            if exchange.resendCount > 0 { attributes[SemanticConventions.resendCount] = exchange.resendCount }
        }
    }

    /// The cache answered: an event on the call's span (a response from the store has no request, so no client
    /// span), a count by outcome (`hit`, `revalidated`, `miss`), and a `debug` line for a hit.
    public func cacheAnswered(_ source: ResponseSource, for request: RequestSummary, context: RequestContext) {
        let outcome = CacheOutcome(source)
        if let span = CallSpan.current, span.isRecording {
            span.addEvent(
                SpanEvent(
                    name: SemanticConventions.cacheEvent,
                    attributes: [SemanticConventions.cacheOutcome: .string(outcome.rawValue)]
                )
            )
        }
        let factory = currentMetricsFactory
        if !(factory is NOOPMetricsHandler) {
            HTTPMetrics.countCache(outcome, method: request.method, template: context.urlTemplate, factory: factory)
        }
        if outcome == .hit {
            logger.debug(
                "\(request) served from the cache",
                metadata: [
                    SemanticConventions.method: "\(request.method)",
                    SemanticConventions.urlFull: "\(request.redactedURL)",
                    SemanticConventions.cacheOutcome: "\(outcome.rawValue)",
                ]
            )
        }
    }
}

/// What the cache did for a request, as the cache metric and event name it.
enum CacheOutcome: String, Sendable {
    /// Served from the store, no request sent.
    case hit
    /// Served from the store after the server's 304.
    case revalidated
    /// Nothing usable stored: the response came from the network.
    case miss

    init(_ source: ResponseSource) {
        switch source {
        case .cache: self = .hit
        case .revalidated: self = .revalidated
        case .network: self = .miss
        }
    }
}
#endif
