#if AsyncHTTPClient
import EndpointKit
import Foundation

private struct Tally: Decodable { var count: Int }

/// The fault server's counters, read through a client of their own.
struct Counters {
    let client: EndpointClient

    init() throws {
        client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
    }

    /// The count for `name/key` now.
    func count(_ name: String, _ key: String) async throws -> Int {
        try await client.response(for: Endpoint<EndpointKinds.Public, Tally>(path: "count/\(name)/\(key)")).count
    }

    /// The count for `name/key` once it is at least 1: a gate the server opens, not a clock.
    func await(_ name: String, _ key: String) async throws -> Int {
        try await client.response(for: Endpoint<EndpointKinds.Public, Tally>(path: "await/\(name)/\(key)")).count
    }
}
#endif
