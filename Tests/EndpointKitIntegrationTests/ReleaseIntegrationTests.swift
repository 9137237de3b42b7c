import EndpointKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

private struct Note: Decodable, Identifiable, Sendable { var id: Int }
private struct Tally: Decodable { var count: Int }

/// Work a loader started in the background stops when the loader and its observers go: counted at the server.
@Suite(.timeLimit(.minutes(1))) struct ReleaseIntegrationTests {
    @Test(
        "Releasing a loader and its observer while its load is held at the server closes that connection; nothing more is sent"
    )
    func releasedLoaderStopsItsLoad() async throws {
        let key = UUID().uuidString
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        let counters = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        func count(_ path: EndpointPath) async throws -> Int {
            try await counters.response(for: Endpoint<EndpointKinds.Public, Tally>(path: path)).count
        }
        var loader: ModelLoader<Note>? = ModelLoader<Note>(client: client) { _ in
            var held = Endpoint<EndpointKinds.Public, Note>(path: "hold/\(key)")
            held.timeout = .seconds(100)
            return held
        }
        let observer = Task { [publisher = loader?.publisher(forID: 1)] in
            guard let publisher else { return }
            for try await _ in publisher {}
        }
        _ = try await count("await/hold/\(key)")

        observer.cancel()
        _ = await observer.result
        loader = nil

        #expect(try await count("await/hold-closed/\(key)") == 1, "the held request's connection was closed")
        #expect(try await count("count/hold/\(key)") == 1, "nothing was sent after the release")
    }
}
