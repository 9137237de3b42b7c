#if Observability && AsyncHTTPClient
import EndpointKit
import EndpointKitObservability
import Foundation
import InMemoryLogging
import InMemoryTracing
import Instrumentation
import Logging
import Testing
import Tracing

/// The in-memory tracer, propagating as a W3C tracer does: a `traceparent` beside its own headers.
private struct W3CInMemoryTracer: Tracer {
    let inner = InMemoryTracer()

    func startSpan<Instant: TracerInstant>(
        _ operationName: String,
        context: @autoclosure () -> InstrumentationContext,
        ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant,
        function: String,
        file fileID: String,
        line: UInt
    ) -> InMemorySpan {
        inner.startSpan(
            operationName,
            context: context(),
            ofKind: kind,
            at: instant(),
            function: function,
            file: fileID,
            line: line
        )
    }

    func forceFlush() { inner.forceFlush() }

    func inject<Carrier, Inject: Injector>(
        _ context: InstrumentationContext,
        into carrier: inout Carrier,
        using injector: Inject
    )
    where Inject.Carrier == Carrier {
        inner.inject(context, into: &carrier, using: injector)
        guard let span = context.inMemorySpanContext else { return }
        injector.inject(
            "00-\(Self.hex(span.traceID, 32))-\(Self.hex(span.spanID, 16))-01",
            forKey: "traceparent",
            into: &carrier
        )
    }

    func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier,
        into context: inout InstrumentationContext,
        using extractor: Extract
    )
    where Extract.Carrier == Carrier {
        inner.extract(carrier, into: &context, using: extractor)
    }

    /// An in-memory ID as the fixed-width lowercase hex a `traceparent` holds.
    static func hex(_ id: String, _ width: Int) -> String {
        let digits = id.lowercased().filter(\.isHexDigit)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits.suffix(width)
    }
}

/// A log line names the trace it belongs to, when the request carried a W3C trace context.
@Suite(.timeLimit(.minutes(1)))
struct LogTraceTests {
    @Test(
        "The debug line of an exchange carries the trace and span IDs the upstream was sent",
        arguments: TransportKind.allCases
    )
    func traceIDs(kind: TransportKind) async throws {
        let tracer = W3CInMemoryTracer()
        var logs = InMemoryLogHandler()
        logs.logLevel = .debug
        let handler = logs
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try Servers.httpbin()),
            transport: kind.transport,
            middleware: [Observability(tracer: tracer, logger: Logger(label: "test") { _ in handler })]
        )

        let echo = try await client.response(for: Endpoint<EndpointKinds.Public, Echo>(path: "anything/\(1)"))

        let line = try #require(logs.entries.first { $0.level == .debug })
        let hop = try #require(tracer.inner.finishedSpans.first { $0.kind == .client })
        let sent = try #require(echo.headers["Traceparent"])
        #expect(sent == "00-\(W3CInMemoryTracer.hex(hop.traceID, 32))-\(W3CInMemoryTracer.hex(hop.spanID, 16))-01")
        #expect(line.metadata["trace_id"] == "\(W3CInMemoryTracer.hex(hop.traceID, 32))")
        #expect(line.metadata["span_id"] == "\(W3CInMemoryTracer.hex(hop.spanID, 16))")
    }
}
#endif
