#if Observability && AsyncHTTPClient
import EndpointKit
import EndpointKitAsyncHTTPClient
import EndpointKitObservability
import Foundation
import InMemoryTracing
import Tracing

// A fixed workload for counting instructions with callgrind: COUNT sequential calls that each fetch and decode
// NGINX_URL/user-1k.json (`{"result": User}`) through EndpointKit, without the Observability middleware (`kit`),
// with it and nothing bootstrapped (`observed`: the no-op tracer and metrics, a logger at its default level), or
// with it and the in-memory tracer (`traced`). A `-ahc` suffix sends through AsyncHTTPClientTransport instead of
// URLSessionTransport. scripts/benchmark-instructions.sh runs it and prints the cost per call.
//
//   endpointkit-observability-instructions kit|observed|traced[-ahc] NGINX_URL COUNT

private struct User: Decodable, Sendable {
    var id: Int
    var name: String
    var email: String
    var bio: String
}

private func run(side: String, baseURL: URL, count: Int) async throws {
    let usesAHC = side.hasSuffix("-ahc")
    let mode = usesAHC ? String(side.dropLast(4)) : side
    let ahc = usesAHC ? AsyncHTTPClientTransport() : nil
    let middleware: [any Middleware] =
        switch mode {
        case "observed": [Observability()]
        case "traced": [Observability(tracer: InMemoryTracer())]
        default: []
        }
    let client = EndpointClient(
        environment: ServerEnvironment(baseURL: baseURL),
        transport: ahc ?? URLSessionTransport(),
        envelope: .networkResponse,
        middleware: middleware,
        cache: nil
    )
    let endpoint = Endpoint<EndpointKinds.Public, User>(path: "user-1k.json")
    for _ in 0..<count { _ = try await client.response(for: endpoint) }
    try await ahc?.shutdown()
}

let arguments = CommandLine.arguments
let sides = ["kit", "observed", "traced"].flatMap { [$0, $0 + "-ahc"] }
guard arguments.count == 4, sides.contains(arguments[1]), let baseURL = URL(string: arguments[2]),
    let count = Int(arguments[3])
else {
    print("usage: endpointkit-observability-instructions kit|observed|traced[-ahc] NGINX_URL COUNT")
    exit(64)
}
let side = arguments[1]
let finished = DispatchSemaphore(value: 0)
// Safe because the task is its only writer and the main thread reads it only after the semaphore.
nonisolated(unsafe) var failure: (any Error)?
// Detached: valgrind stops an async top-level program; the main thread waits on the semaphore instead.
let work = Task.detached {
    do {
        try await run(side: side, baseURL: baseURL, count: count)
    } catch {
        failure = error
    }
    finished.signal()
}
finished.wait()
work.cancel()  // Over already: the handle is kept so that the work has an owner.
if let failure {
    print("endpointkit-observability-instructions: \(failure)")
    exit(1)
}
#endif
