import EndpointKit
import EndpointKitObservability
import Foundation
import OTel
import Tracing

// Exports one traced call to the OTLP/HTTP receiver at OTEL_EXPORTER_OTLP_ENDPOINT: a "handler" span, inside it
// a call through EndpointKit with the Observability middleware to httpbin's /anything/{id}, which echoes the
// request's headers. Prints, as JSON on the last line, the trace context the upstream saw.
//
//   otlp-check HTTPBIN_URL

private struct Echo: Decodable { var headers: [String: String] }
private struct Received: Decodable { var count: Int }

/// Waits until the receiver has `count` spans (the batch is exported every 100 ms), at most 10 s.
private func waitForReceiver(_ count: Int) async throws {
    guard let endpoint = ProcessInfo.processInfo.environment["OTEL_EXPORTER_OTLP_ENDPOINT"].flatMap(URL.init(string:))
    else { return }
    let receiver = EndpointClient(environment: ServerEnvironment(baseURL: endpoint), cache: nil)
    for _ in 0..<200 {
        let received = try await receiver.response(for: Endpoint<EndpointKinds.Public, Received>(path: "spans"))
        if received.count >= count { return }
        try await Task.sleep(for: .milliseconds(50))
    }
    print("otlp-check: the receiver got fewer than \(count) spans in 10 s")
}

guard CommandLine.arguments.count == 2, let httpbin = URL(string: CommandLine.arguments[1]) else {
    print("usage: otlp-check HTTPBIN_URL")
    exit(64)
}

var configuration = OTel.Configuration.default
configuration.serviceName = "endpointkit-otlp-check"
configuration.metrics.enabled = false
configuration.logs.enabled = false
let observability = try OTel.bootstrap(configuration: configuration, environment: ProcessInfo.processInfo.environment)

let client = EndpointClient(environment: ServerEnvironment(baseURL: httpbin), middleware: [Observability()])
let seen = try await withThrowingTaskGroup(of: String?.self) { group in
    group.addTask {
        try await observability.run()
        return nil
    }
    let echo = try await withSpan("handler") { _ in
        try await client.response(for: Endpoint<EndpointKinds.Public, Echo>(path: "anything/\(42)"))
    }
    // The batch reaches the receiver before the exporter's service is ended.
    try await waitForReceiver(3)
    group.cancelAll()
    do {
        while let result = try await group.next() { _ = result }
    } catch is CancellationError {
        // The service ends by throwing the cancellation it was asked for.
    }
    return echo.headers["Traceparent"] ?? ""
}
print(#"{"traceparent": "\#(seen)"}"#)
