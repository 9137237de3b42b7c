#if Observability
import EndpointKit
import Instrumentation
import Logging
import Metrics
import Tracing

/// OpenTelemetry-conformant tracing, metrics and logs for an ``EndpointClient``, in one value listed first in its
/// middleware:
///
///     let auth = BearerAuthentication(token: { token }, refresh: { _ in token })
///     let client = EndpointClient(
///         environment: ServerEnvironment(baseURL: URL(string: "https://api.example.com/v1")!),
///         middleware: [Observability(), auth, Retry()]
///     )
///
/// It is a middleware, so where it sits decides what its **call span** covers (listed first: retries, token
/// refreshes and backoff waits); and it is a ``HopInstrument``, so the client also hands it every request that
/// goes on the wire, wherever it sits: one **client span** per physical request (each retry and each redirect
/// hop), the trace context written into that request's headers by the bootstrapped instrument (W3C
/// `traceparent`/`tracestate` with swift-otel), `http.client.request.duration` and `http.client.active_requests`,
/// and a `debug` log line per exchange. A call that fails logs one `warning`. See the *Observability* article for
/// every span, attribute, metric and log field, and the conventions they follow.
///
/// Nothing is set up here: it uses the tracer, metrics factory and logger the process bootstrapped
/// (`InstrumentationSystem`, `MetricsSystem`, `LoggingSystem`), or the ones passed in. With none bootstrapped it
/// costs little: no-op spans record nothing, and log metadata is built only when the level lets a line out.
public struct Observability: Middleware, HopInstrument {
    /// The tracer, or `nil` for the bootstrapped one (read on each call, so a later bootstrap is seen).
    let tracer: (any Tracer)?
    /// The metrics factory, or `nil` for the bootstrapped one.
    let metricsFactory: (any MetricsFactory)?
    /// Where log lines go.
    let logger: Logger
    /// Whether each call gets a span of its own, parent of its client spans.
    let tracesCalls: Bool

    /// Creates the middleware.
    ///
    /// - Parameters:
    ///   - tracer: The tracer to use; `nil` (the default) for `InstrumentationSystem.tracer`.
    ///   - metricsFactory: The factory for metrics; `nil` (the default) for `MetricsSystem.factory`.
    ///   - logger: The logger for the exchange lines (`debug`) and failed calls (`warning`).
    ///   - tracesCalls: Whether each call gets an `internal` span, parent of its client spans, that carries the
    ///     cache's answers as events; `false` leaves the client spans children of the caller's span.
    public init(
        tracer: (any Tracer)? = nil,
        metricsFactory: (any MetricsFactory)? = nil,
        logger: Logger = Logger(label: "EndpointKit"),
        tracesCalls: Bool = true
    ) {
        self.tracer = tracer
        self.metricsFactory = metricsFactory
        self.logger = logger
        self.tracesCalls = tracesCalls
    }

    /// The tracer to report to, or `nil` when there is none; and, with no tracer, the instrument that still
    /// propagates the caller's context, if one is bootstrapped. Read once per use, in the cheapest order: the
    /// bootstrapped instrument first (a plain read), and only when it is not the no-op one, the search for a tracer
    /// in it (a protocol-conformance lookup, thousands of instructions).
    func activeInstruments() -> (tracer: (any Tracer)?, propagator: (any Instrument)?) {
        if let tracer { return (tracer is NoOpTracer ? nil : tracer, nil) }
        let instrument = InstrumentationSystem.instrument
        if instrument is NoOpInstrument { return (nil, nil) }
        let found = InstrumentationSystem.tracer
        return found is NoOpTracer ? (nil, instrument) : (found, nil)
    }

    /// The metrics factory this call uses.
    var currentMetricsFactory: any MetricsFactory { metricsFactory ?? MetricsSystem.factory }
}
#endif
