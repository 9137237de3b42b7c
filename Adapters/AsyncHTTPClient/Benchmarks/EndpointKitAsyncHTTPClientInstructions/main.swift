#if AsyncHTTPClient
import AsyncHTTPClient
import EndpointKit
import EndpointKitAsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

// A fixed workload for counting instructions with callgrind: COUNT sequential calls that each fetch and decode
// NGINX_URL/user-1k.json (`{"result": User}`), through EndpointKit over AsyncHTTPClientTransport or through raw
// AsyncHTTPClient configured the same way. scripts/benchmark-instructions.sh runs it and prints the cost per call.
//
//   endpointkit-ahc-instructions kit|raw|raw-delegate NGINX_URL COUNT
//
// raw-delegate sends through AsyncHTTPClient's delegate API (a `ResponseAccumulator`), the API
// AsyncHTTPClientTransport collects bodies with: what that API costs against the async one.
//
// The main thread waits on a semaphore instead of being async: valgrind stops with a fatal signal on an async
// top-level program.

private struct User: Decodable, Sendable {
    var id: Int
    var name: String
    var email: String
    var bio: String
}

private struct Envelope: Decodable, Sendable { var result: User }

private func run(side: String, baseURL: URL, count: Int) async throws {
    let url = baseURL.appendingPathComponent("user-1k.json")
    if side == "raw" {
        let http = HTTPClient(configuration: AsyncHTTPClientTransport.defaultConfiguration())
        for _ in 0..<count {
            var request = HTTPClientRequest(url: url.absoluteString)
            request.headers.add(name: "Accept", value: "application/json")
            let response = try await http.execute(request, timeout: .seconds(60))
            guard response.status == .ok else { throw URLError(.badServerResponse) }
            let body = try await response.body.collect(upTo: 64 << 20)
            _ = try JSONDecoder().decode(Envelope.self, from: Data(buffer: body))
        }
        try await http.shutdown()
    } else if side == "raw-delegate" {
        // AsyncHTTPClient's delegate API, which AsyncHTTPClientTransport uses for collected bodies.
        let http = HTTPClient(configuration: AsyncHTTPClientTransport.defaultConfiguration())
        for _ in 0..<count {
            let request = try HTTPClient.Request(url: url, headers: ["Accept": "application/json"])
            let response = try await http.execute(request: request, delegate: ResponseAccumulator(request: request))
                .futureResult.get()
            guard response.status == .ok, let body = response.body else { throw URLError(.badServerResponse) }
            _ = try JSONDecoder().decode(Envelope.self, from: Data(buffer: body))
        }
        try await http.shutdown()
    } else {
        let transport = AsyncHTTPClientTransport()
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: baseURL),
            transport: transport,
            envelope: .networkResponse,
            cache: nil
        )
        let endpoint = Endpoint<EndpointKinds.Public, User>(path: "user-1k.json")
        for _ in 0..<count { _ = try await client.response(for: endpoint) }
        try await transport.shutdown()
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 4, ["kit", "raw", "raw-delegate"].contains(arguments[1]),
    let baseURL = URL(string: arguments[2]),
    let count = Int(arguments[3])
else {
    print("usage: endpointkit-ahc-instructions kit|raw|raw-delegate NGINX_URL COUNT")
    exit(64)
}
let side = arguments[1]
let finished = DispatchSemaphore(value: 0)
// Safe because the task is its only writer and the main thread reads it only after the semaphore.
nonisolated(unsafe) var failure: (any Error)?
// Detached: a task made here would inherit the main actor, whose thread waits on the semaphore below.
Task.detached {
    do {
        try await run(side: side, baseURL: baseURL, count: count)
    } catch {
        failure = error
    }
    finished.signal()
}
finished.wait()
if let failure {
    print("endpointkit-ahc-instructions: \(failure)")
    exit(1)
}
#endif
