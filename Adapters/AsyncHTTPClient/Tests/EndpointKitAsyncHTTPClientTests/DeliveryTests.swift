#if AsyncHTTPClient
import EndpointKit
import EndpointKitAsyncHTTPClient
import Foundation
import Testing

/// Whether a failed request may have reached the server, as each transport reports it, and what an outbox does
/// with that past a write's age: a write that never left expires and rolls back; one whose answer was lost ends
/// unknown.
@Suite("Whether a request may have been sent, over both transports", .timeLimit(.minutes(2)))
struct DeliveryTests {
    struct Note: Codable, Identifiable, Sendable, Equatable {
        var id: String
        var text: String
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    enum Stack: String, CaseIterable, Sendable {
        case urlSession, asyncHTTPClient

        func client(_ server: URL, timeout: Duration = .seconds(5)) -> EndpointClient {
            var defaults = RequestDefaults()
            defaults.timeout = timeout
            let transport: any Transport =
                self == .urlSession ? URLSessionTransport() : AsyncHTTPClientTransport()
            return EndpointClient(
                environment: ServerEnvironment(baseURL: server),
                transport: transport,
                defaults: defaults,
                cache: nil
            )
        }
    }

    private static func post(_ key: String, query: [URLQueryItem] = []) -> Endpoint<EndpointKinds.Public, Data> {
        Endpoint(
            method: .post,
            path: "idem/\(key)/n1",
            queryItems: query,
            body: DataBody(Data("text".utf8), contentType: "text/plain")
        )
    }

    private static func failure(_ stack: Stack, _ server: URL, _ endpoint: Endpoint<EndpointKinds.Public, Data>)
        async throws -> EndpointError
    {
        do {
            _ = try await stack.client(server).response(for: endpoint)
        } catch {
            return error
        }
        throw Failure("the call succeeded")
    }

    @Test("A refused connection: nothing was sent", arguments: Stack.allCases)
    func refused(_ stack: Stack) async throws {
        let down = try FaultServerProcess()
        let error = try await Self.failure(stack, down.url, Endpoint(path: "get"))
        #expect(error.statusCode == nil)
        #expect(error.mayHaveBeenSent == false, "\(error)")
    }

    @Test("A TLS handshake that failed (a certificate nobody trusts): nothing was sent", arguments: Stack.allCases)
    func handshakeFailed(_ stack: Stack) async throws {
        let error = try await Self.failure(stack, try TestServers.untrustedHTTPS(), Endpoint(path: "get"))
        #expect(error.kind == .secureConnectionFailed)
        #expect(error.mayHaveBeenSent == false, "\(error)")
    }

    @Test("A connection lost after the request was read: it may have been sent", arguments: Stack.allCases)
    func answerLost(_ stack: Stack) async throws {
        var endpoint = Self.post("delivery-\(UUID().uuidString)", query: [URLQueryItem(name: "drop", value: "1")])
        endpoint.headers["Idempotency-Key"] = UUID().uuidString
        endpoint.options.retryPolicy = RetryPolicy(maxAttempts: 1)
        let error = try await Self.failure(stack, try TestServers.fault(), endpoint)
        #expect(error.statusCode == nil)
        #expect(error.mayHaveBeenSent, "\(error)")
    }

    private static func outbox(_ client: EndpointClient, maximumAge: Duration) throws -> (
        Outbox<EndpointKinds.Public>, URL
    ) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)")
        var policy = OutboxPolicy()
        (policy.initialBackoff, policy.maximumBackoff, policy.maximumAge) =
            (.milliseconds(20), .milliseconds(100), maximumAge)
        return (try Outbox(directory: directory, client: client, policy: policy), directory)
    }

    @Test(
        "Offline past its age: every try refused, the write expires and the store rolls it back",
        arguments: Stack.allCases
    )
    func offlineExpires(_ stack: Stack) async throws {
        let down = try FaultServerProcess()
        let (outbox, directory) = try Self.outbox(stack.client(down.url), maximumAge: .seconds(1))
        defer { try? FileManager.default.removeItem(at: directory) }
        let changes = outbox.changes()
        let loader = ModelLoader<Note> { Note(id: $0, text: "loaded") }
        _ = try await loader.loadModel(withID: "n1")
        try loader.update(Note(id: "n1", text: "offline"), sending: Self.post("offline"), through: outbox)

        var pauses = 0
        var ended: OutboxChange?
        for await change in changes {
            if case .paused = change { pauses += 1 }
            if case .expired = change { ended = change }
            if case .unknown = change { ended = change }
            if ended != nil { break }
        }
        guard case .expired(_, let error)? = ended else { throw Failure("not expired: \(String(describing: ended))") }
        #expect(error.kind == .writeExpired)
        #expect(pauses >= 1, "the write was tried before it expired")
        let state = try #require(await loader.states(forID: "n1").first { !$0.isWritePending })
        #expect(state.value?.text == "loaded")
    }

    @Test("An answer lost past its age: the write ends unknown, not expired", arguments: Stack.allCases)
    func lostAnswerIsUnknown(_ stack: Stack) async throws {
        let server = try TestServers.fault()
        let (outbox, directory) = try Self.outbox(
            stack.client(server, timeout: .milliseconds(200)),
            maximumAge: .seconds(1)
        )
        defer { try? FileManager.default.removeItem(at: directory) }
        let changes = outbox.changes()
        let loader = ModelLoader<Note> { Note(id: $0, text: "loaded") }
        let endpoint = Self.post("lost-\(UUID().uuidString)", query: [URLQueryItem(name: "delay-ms", value: "3000")])
        try loader.update(Note(id: "n1", text: "lost"), sending: endpoint, through: outbox)

        var ended: OutboxChange?
        for await change in changes {
            switch change {
            case .expired, .unknown, .sent: ended = change
            default: continue
            }
            break
        }
        guard case .unknown(_, let error)? = ended else { throw Failure("not unknown: \(String(describing: ended))") }
        #expect(error.kind == .writeOutcomeUnknown)
    }
}
#endif
