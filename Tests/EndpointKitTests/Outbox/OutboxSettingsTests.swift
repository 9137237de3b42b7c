import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a write keeps of its endpoint, how groups wait apart, and how the stores that show writes come and go.
@Suite(.timeLimit(.minutes(1)))
struct OutboxSettingsTests {
    private let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)")

    @Test("An endpoint's own envelope reads the answer shown; its other settings are kept on disk")
    func settingsKept() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let stub = StubTransport { request in
            // A GET is an observer's load; the answer that matters is the PUT's.
            request.method == "PUT" ? .json(#"{"result": {"id": "n1", "text": "as the server has it"}}"#) : .status(404)
        }
        let client = OutboxTestSupport.client(stub)
        let outbox = try Outbox<EndpointKinds.Public>(directory: directory, client: client, startsSending: false)
        let loader = ModelLoader<OutboxNote>(client: client) {
            Endpoint<EndpointKinds.Public, OutboxNote>(path: "notes/\($0)")
        }
        var endpoint = OutboxTestSupport.save(OutboxNote(id: "n1", text: "edited"))
        endpoint.envelope = .networkResponse
        endpoint.timeout = .seconds(7)
        endpoint.options.isLogged = false

        try loader.update(OutboxNote(id: "n1", text: "edited"), sending: endpoint, through: outbox)
        let entries = directory.appendingPathComponent("entries")
        let file = try FileManager.default.contentsOfDirectory(atPath: entries.path).first.map {
            try String(contentsOf: entries.appendingPathComponent($0), encoding: .utf8)
        }
        outbox.resume()
        let settled = await loader.states(forID: "n1").first { !$0.isWritePending }

        #expect(settled?.value?.text == "as the server has it")
        #expect(file?.contains(#""isLogged":false"#) == true && file?.contains(#""timeout""#) == true)
    }

    @Test("A setting a write cannot keep on disk is refused at enqueue, naming it, never dropped", arguments: 0..<4)
    func unkeptSettingRefused(case index: Int) throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let outbox = try Outbox<EndpointKinds.Public>(
            directory: directory,
            client: OutboxTestSupport.client(StubTransport(replies: [])),
            startsSending: false
        )
        var endpoint = OutboxTestSupport.save(OutboxNote(id: "n1", text: "a"))
        let named: String
        switch index {
        case 0: (endpoint.decoder, named) = (JSONDecoder(), "decoder")
        case 1: (endpoint.options.retryPolicy, named) = (RetryPolicy(maxAttempts: 3), "retry policy")
        case 2: (endpoint.options.isValidated, named) = (false, "isValidated")
        default: (endpoint.options.cacheDirectives.noStore, named) = (true, "cache directives")
        }

        let refused = #expect(throws: EndpointError.self) { try outbox.enqueue(endpoint) }

        #expect(refused?.kind == .invalidRequest && refused?.message.contains(named) == true)
        #expect(outbox.pending.isEmpty)
    }

    @Test("A write queued without a group goes in its endpoint's; a group the caller names wins")
    func endpointGroup() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let client = OutboxTestSupport.client(StubTransport(replies: []))
        let outbox = try Outbox<EndpointKinds.Public>(directory: directory, client: client, startsSending: false)
        let loader = ModelLoader<OutboxNote>(client: client) {
            Endpoint<EndpointKinds.Public, OutboxNote>(path: "notes/\($0)")
        }
        var endpoint = OutboxTestSupport.save(OutboxNote(id: "n1", text: "a"))
        endpoint.options.outboxGroup = "notes/n1"

        try outbox.enqueue(endpoint)
        try outbox.enqueue(endpoint, group: "named")
        try loader.update(OutboxNote(id: "n1", text: "b"), sending: endpoint, through: outbox)
        try outbox.enqueue(OutboxTestSupport.save(OutboxNote(id: "n2", text: "c")))

        #expect(outbox.pending.map(\.group) == ["notes/n1", "named", "notes/n1", OutboxWrite.defaultGroup])
    }

    @Test("An endpoint that decodes with its client's own decoder is queued; any other decoder is refused")
    func clientDecoderKept() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let shared = JSONDecoder()
        shared.dateDecodingStrategy = .iso8601
        let client = EndpointClient(
            environment: OutboxTestSupport.client(StubTransport(replies: [])).environment,
            transport: StubTransport(replies: []),
            defaults: RequestDefaults(decoder: shared)
        )
        let outbox = try Outbox<EndpointKinds.Public>(directory: directory, client: client, startsSending: false)
        var endpoint = OutboxTestSupport.save(OutboxNote(id: "n1", text: "a"))
        endpoint.decoder = shared
        try outbox.enqueue(endpoint)
        endpoint.decoder = JSONDecoder()

        let refused = #expect(throws: EndpointError.self) { try outbox.enqueue(endpoint) }

        #expect(outbox.pending.count == 1)
        #expect(refused?.message.contains("a decoder other than its client's") == true)
    }

    @Test("A pause a group earned ends on its own schedule, not on another group's success")
    func pausesApart() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let stub = StubTransport { request in
            request.url.path.hasSuffix("/limited") ? .status(503) : .status(200)
        }
        var policy = OutboxPolicy()
        policy.initialBackoff = .seconds(3600)
        let outbox = try Outbox<EndpointKinds.Public>(
            directory: directory,
            client: OutboxTestSupport.client(stub),
            policy: policy
        )
        let changes = outbox.changes()

        try outbox.enqueue(Endpoint<EndpointKinds.Public, Data>(method: .post, path: "limited"), group: "limited")
        for await change in changes { if case .paused = change { break } }
        try outbox.enqueue(Endpoint<EndpointKinds.Public, Data>(method: .post, path: "fine"), group: "fine")
        for await change in changes { if case .sent = change { break } }
        await outbox.waitUntilIdle()

        #expect(await stub.requests.filter { $0.url?.path.hasSuffix("/limited") == true }.count == 1)
        #expect(outbox.pending.map(\.group) == ["limited"])
    }

    @Test("Loaders made one after another each show their write; a store that goes leaves the outbox")
    func storesComeAndGo() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let stub = StubTransport { request in
            request.method == "PUT" ? .status(204) : .status(404)
        }
        let client = OutboxTestSupport.client(stub)
        let outbox = try Outbox<EndpointKinds.Public>(directory: directory, client: client, startsSending: false)

        var shown = 0
        for index in 0..<200 {
            let loader = ModelLoader<OutboxNote>(client: client) {
                Endpoint<EndpointKinds.Public, OutboxNote>(path: "notes/\($0)")
            }
            let note = OutboxNote(id: "n\(index)", text: "v\(index)")
            try loader.update(note, sending: OutboxTestSupport.save(note), through: outbox)
            // Read from the store itself: an observer would start a load that keeps the store a while longer.
            let state = loader.store.state.withLock { $0.slots[loader.key(note.id)]?.entry.state }
            if state?.value == note, state?.isWritePending == true { shown += 1 }
        }

        #expect(shown == 200)
        #expect(outbox.queue.listenerCount == 0)
    }

    @Test("A client's Retry step does not multiply the outbox's tries: each try is one request, then the backoff")
    func oneBackoffPerTry() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let stub = StubTransport(replies: [.connectionLost(), .status(200)])
        let base = URL(string: "https://api.example.com") ?? URL(fileURLWithPath: "/")
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: base),
            transport: stub,
            middleware: [Retry(RetryPolicy(maxAttempts: 3))]
        )
        var policy = OutboxPolicy()
        policy.initialBackoff = .milliseconds(1)
        let outbox = try Outbox<EndpointKinds.Public>(directory: directory, client: client, policy: policy)
        let changes = outbox.changes()

        try outbox.enqueue(OutboxTestSupport.save(OutboxNote(id: "n1", text: "a")))
        var seen: [String] = []
        for await change in changes {
            seen.append("\(change)".components(separatedBy: " ")[0])
            if case .sent = change { break }
        }

        #expect(seen == ["queued", "paused", "resumed", "sent"])
        #expect(await stub.requests.count == 2)
    }

    @Test("A loader's state tells a write waiting for the network, and until when, from one on its way")
    func waitingWriteShown() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let puts = Locked(0)
        let stub = StubTransport { request in
            guard request.method == "PUT" else { return .status(404) }
            return puts.withLock { count in
                count += 1
                return count == 1 ? .connectionLost() : .status(204)
            }
        }
        let client = OutboxTestSupport.client(stub)
        var policy = OutboxPolicy()
        (policy.initialBackoff, policy.maximumBackoff) = (.seconds(3600), .seconds(3600))
        let outbox = try Outbox<EndpointKinds.Public>(directory: directory, client: client, policy: policy)
        let loader = ModelLoader<OutboxNote>(client: client) {
            Endpoint<EndpointKinds.Public, OutboxNote>(path: "notes/\($0)")
        }
        let note = OutboxNote(id: "n1", text: "offline edit")
        let before = Date()

        try loader.update(note, sending: OutboxTestSupport.save(note), through: outbox)
        let waiting = await loader.states(forID: "n1").first { $0.writeWaitsUntil != nil }
        outbox.resume()
        let settled = await loader.states(forID: "n1").first { !$0.isWritePending }

        let until = try #require(waiting?.writeWaitsUntil)
        #expect(waiting?.isWritePending == true && waiting?.value == note)
        #expect(until >= before.addingTimeInterval(1800) && until <= Date().addingTimeInterval(3600))
        #expect(settled?.writeWaitsUntil == nil && settled?.value == note)
    }
}
