import EndpointKit
import EndpointKitTesting
import Foundation

/// A note: the model the outbox's unit tests write.
struct OutboxNote: Codable, Identifiable, Sendable, Equatable {
    var id: String
    var text: String
}

/// What the outbox's unit tests share: a client of a stub server, and the write of a note.
enum OutboxTestSupport {
    /// A client of `stub` at `https://api.example.com`.
    static func client(_ stub: StubTransport) -> EndpointClient {
        // A file URL, were the literal ever unreadable, fails every test: the client refuses it.
        let base = URL(string: "https://api.example.com") ?? URL(fileURLWithPath: "/")
        return EndpointClient(environment: ServerEnvironment(baseURL: base), transport: stub)
    }

    /// `PUT /notes/ID` with the note as JSON.
    static func save(_ note: OutboxNote) -> Endpoint<EndpointKinds.Public, OutboxNote> {
        Endpoint(method: .put, path: "notes/\(note.id)", body: JSONBody(note))
    }
}
