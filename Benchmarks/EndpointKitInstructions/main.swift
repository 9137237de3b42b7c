import EndpointKit
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// A fixed workload for counting instructions with callgrind: COUNT sequential calls that each fetch and decode
// NGINX_URL/user-1k.json (`{"result": User}`), through EndpointKit or through raw URLSession configured as
// EndpointKit's default transport is. scripts/benchmark-instructions.sh runs it and prints the cost per call.
//
//   endpointkit-instructions kit|raw|pipeline|raw-auth|kit-cache|pipeline-cache|kit-hit NGINX_URL COUNT
//
// `pipeline` is the README's pipeline (bearer authentication, retry, throttle, logging, an error-envelope
// validator); `raw-auth` is raw URLSession sending the same `Authorization` header. `kit` and `pipeline` run
// without the HTTP cache; `kit-cache` and `pipeline-cache` run the same calls with the default cache on and the
// endpoint asking it to store nothing (`no-store`), so that every call still goes out: what the cache's step
// costs a call it cannot serve (its look-up, the partition's keyed hash with a token, the storability check).
// `kit-hit` serves every call after the first from the cache (the endpoint accepts a stale response).
//
// The main thread waits on a semaphore instead of being async: valgrind stops with a fatal signal on an async
// top-level program, and runs this one.

private struct User: Decodable, Sendable {
    var id: Int
    var name: String
    var email: String
    var bio: String
}

private struct Envelope: Decodable, Sendable { var result: User }

private struct APIError: Error, Decodable, Sendable { var code: Int }

extension Endpoint where Kind == EndpointKinds.Authenticated, Response == User {
    fileprivate static var user: Self { Endpoint(path: "user-1k.json") }
}

private func run(side: String, baseURL: URL, count: Int) async throws {
    let configuration = URLSessionTransport.defaultConfiguration()
    if side == "raw" || side == "raw-auth" {
        let session = URLSession(configuration: configuration)
        let url = baseURL.appendingPathComponent("user-1k.json")
        let decoder = JSONDecoder()
        for _ in 0..<count {
            var request = URLRequest(url: url)
            request.setValue("application/json", forHTTPHeaderField: "Accept")
            if side == "raw-auth" { request.setValue("Bearer bench-token", forHTTPHeaderField: "Authorization") }
            let (data, _) = try await session.data(for: request)
            _ = try decoder.decode(Envelope.self, from: data)
        }
    } else if side == "pipeline" || side == "pipeline-cache" {
        let auth = BearerAuthentication(token: { AccessToken("bench-token") }, refresh: { $0 })
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: baseURL),
            transport: URLSessionTransport(configuration: configuration),
            envelope: .networkResponse,
            middleware: [auth, Retry(), Throttle(maxConcurrent: 16), ExchangeLogging { _ in }],
            validators: [.errorEnvelope(APIError.self)],
            cache: side == "pipeline-cache" ? HTTPCache() : nil
        )
        var endpoint = Endpoint<EndpointKinds.Authenticated, User>.user
        endpoint.options.cacheDirectives.noStore = side == "pipeline-cache"
        for _ in 0..<count { _ = try await client.response(for: endpoint) }
    } else {
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: baseURL),
            transport: URLSessionTransport(configuration: configuration),
            envelope: .networkResponse,
            cache: side == "kit-cache" || side == "kit-hit" ? HTTPCache() : nil
        )
        var endpoint = Endpoint<EndpointKinds.Public, User>(path: "user-1k.json")
        endpoint.options.cacheDirectives.noStore = side == "kit-cache"
        if side == "kit-hit" { endpoint.options.cacheDirectives.maxStale = .seconds(86_400) }
        for _ in 0..<count { _ = try await client.response(for: endpoint) }
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 4,
    ["kit", "raw", "pipeline", "raw-auth", "kit-cache", "pipeline-cache", "kit-hit"].contains(arguments[1]),
    let baseURL = URL(string: arguments[2]),
    let count = Int(arguments[3])
else {
    print("usage: endpointkit-instructions kit|raw|pipeline|raw-auth|kit-cache|pipeline-cache|kit-hit NGINX_URL COUNT")
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
    print("endpointkit-instructions: \(failure)")
    exit(1)
}
