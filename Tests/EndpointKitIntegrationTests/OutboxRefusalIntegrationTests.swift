import EndpointKit
import Foundation
import Testing

/// The outbox's conflict proof and its other promises: refused writes (400, 409, 412, and 422 for a key reused with
/// another body) are rolled back and reported, typed; the group goes on, or stops under `.stopGroup`; no credential
/// reaches the disk; a damaged file is set aside and the rest is sent; the bounds refuse a write before it is
/// shown, and an expired one is rolled back.
@Suite("Outbox refusals and bounds", .timeLimit(.minutes(2)))
struct OutboxRefusalIntegrationTests {
    /// A write of `note` that httpbin answers with `status`, whatever it carries.
    static func refused(_ note: OutboxNote, status: Int) throws -> Endpoint<EndpointKinds.Public, Data> {
        Endpoint(
            method: .post,
            url: try TestServers.httpbin().appendingPathComponent("status/\(status)"),
            body: DataBody(Data(note.text.utf8), contentType: "text/plain")
        )
    }

    @Test("Refused writes (400, 409, 412, 422) roll back and reach observers typed; the group goes on by default")
    func refusalsRollBack() async throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        let server = try TestServers.fault()
        let outbox = try Outbox<EndpointKinds.Public>(
            directory: fixture.directory,
            client: OutboxIntegrationTests.client(server)
        )
        let changes = outbox.changes()
        let loader = OutboxFixture.loader()
        let confirmed = OutboxNote(id: "n1", text: "confirmed")
        try loader.update(confirmed, sending: fixture.save(confirmed), through: outbox)
        var reused = fixture.save(OutboxNote(id: "n1", text: "once"))
        reused.headers["Idempotency-Key"] = "\"reused-\(fixture.key)\""
        try outbox.enqueue(reused)

        var conflicting = fixture.save(OutboxNote(id: "n1", text: "another body"))
        conflicting.headers["Idempotency-Key"] = "\"reused-\(fixture.key)\""
        let writes = [
            try loader.update(
                OutboxNote(id: "n1", text: "bad"),
                sending: Self.refused(confirmed, status: 400),
                through: outbox
            ),
            try loader.update(
                OutboxNote(id: "n1", text: "stale"),
                sending: Self.refused(confirmed, status: 409),
                through: outbox
            ),
            try loader.update(
                OutboxNote(id: "n1", text: "late"),
                sending: Self.refused(confirmed, status: 412),
                through: outbox
            ),
            try loader.update(OutboxNote(id: "n1", text: "conflict"), sending: conflicting, through: outbox),
        ]
        let after = OutboxNote(id: "n1", text: "after")
        try loader.update(after, sending: fixture.save(after), through: outbox)

        var refusals: [String: EndpointError] = [:]
        var sent = 0
        for await change in changes {
            if case .refused(let write, let error) = change { refusals[write.id] = error }
            if case .sent = change { sent += 1 }
            if sent == 3 { break }
        }
        #expect(writes.map { refusals[$0.id]?.statusCode } == [400, 409, 412, 422])
        #expect(refusals.values.allSatisfy { $0.kind == .unacceptableStatus })
        // The group went on: the write after the refusals was sent, and the server applied what it took, in order.
        #expect(try await fixture.applied(at: server)["n1"] == ["confirmed", "once", "after"])
        let state = try #require(await loader.states(forID: "n1").first { !$0.isWritePending })
        #expect(state.value == after)
    }

    @Test("A refusal alone rolls the value back to the one the server confirmed")
    func rollbackShows() async throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        let outbox = try Outbox<EndpointKinds.Public>(
            directory: fixture.directory,
            client: OutboxIntegrationTests.client(try TestServers.fault())
        )
        let changes = outbox.changes()
        let loader = OutboxFixture.loader()
        let confirmed = OutboxNote(id: "n1", text: "confirmed")
        try loader.update(confirmed, sending: fixture.save(confirmed), through: outbox)
        _ = await Changes.first(of: changes) { if case .sent = $0 { true } else { false } }

        let edited = OutboxNote(id: "n1", text: "edited")
        try loader.update(edited, sending: Self.refused(edited, status: 409), through: outbox)

        let refusal = await Changes.first(of: changes) { if case .refused = $0 { true } else { false } }
        guard case .refused(_, let error)? = refusal else { throw Failure("no refusal") }
        #expect(error.statusCode == 409)
        let state = try #require(await loader.states(forID: "n1").first { !$0.isWritePending })
        #expect(state.value == confirmed)
    }

    @Test("Under .stopGroup a refusal stops its group, keeping later writes pending, until resume()")
    func stopGroup() async throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        let server = try TestServers.fault()
        var policy = OutboxPolicy()
        policy.onRefusal = .stopGroup
        let outbox = try Outbox<EndpointKinds.Public>(
            directory: fixture.directory,
            client: OutboxIntegrationTests.client(server),
            policy: policy
        )
        let changes = outbox.changes()
        let loader = OutboxFixture.loader()
        try loader.update(
            OutboxNote(id: "n1", text: "refused"),
            sending: Self.refused(OutboxNote(id: "n1", text: "x"), status: 412),
            through: outbox
        )
        let later = OutboxNote(id: "n1", text: "later")
        try loader.update(later, sending: fixture.save(later), through: outbox)

        let stopped = await Changes.first(of: changes) { if case .stopped = $0 { true } else { false } }
        guard case .stopped(let group)? = stopped else { throw Failure("no stop") }
        #expect(group == OutboxWrite.defaultGroup)
        #expect(outbox.pending.count == 1)
        #expect(try await fixture.applied(at: server)["n1"] == nil)
        let waiting = try #require(await loader.states(forID: "n1").first { _ in true })
        #expect(waiting.value == later && waiting.isWritePending)

        outbox.resume()
        _ = await Changes.first(of: changes) { if case .sent = $0 { true } else { false } }
        #expect(try await fixture.applied(at: server)["n1"] == ["later"])
    }

    @Test(
        "No credential is written to disk: a secret header or query item is refused; the kind adds the token at send time"
    )
    func noCredentialsOnDisk() async throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        let server = try LateServer()
        let token = "s3cret-\(UUID().uuidString)"
        let outbox = try Outbox<EndpointKinds.Private>(
            directory: fixture.directory,
            client: OutboxIntegrationTests.client(server.url)
        ) {
            AccessToken(token)
        }
        let write = Endpoint<EndpointKinds.Private, Data>(
            method: .post,
            path: "auth/\(fixture.key)",
            body: JSONBody(["title": "hello"])
        )
        try outbox.enqueue(write)
        var withHeader = write
        withHeader.headers["Authorization"] = "Bearer \(token)"
        var withQuery = write
        withQuery.queryItems = [URLQueryItem(name: "access_token", value: token)]

        let headerError = #expect(throws: EndpointError.self) { try outbox.enqueue(withHeader) }
        let queryError = #expect(throws: EndpointError.self) { try outbox.enqueue(withQuery) }

        #expect(headerError?.kind == .invalidRequest && queryError?.kind == .invalidRequest)
        #expect(!"\(headerError.map(String.init(describing:)) ?? "")".contains(token))
        let files = fixture.queuedFiles()
        #expect(files.count == 1 && files.allSatisfy { !$0.contains(token) && !$0.contains("Authorization") })
    }

    @Test("The token comes from requestData at send time: the server sees it, and a token it refuses is a refusal")
    func tokenAtSendTime() async throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        let token = LockedBox("stale")
        let outbox = try Outbox<EndpointKinds.Private>(
            directory: fixture.directory,
            client: OutboxIntegrationTests.client(try TestServers.fault())
        ) { AccessToken(token.withLock { $0 }) }
        let changes = outbox.changes()
        let write = Endpoint<EndpointKinds.Private, Data>(method: .post, path: "auth/\(fixture.key)")

        try outbox.enqueue(write)
        let first = await Changes.first(of: changes) { if case .refused = $0 { true } else { false } }
        token.withLock { $0 = "fresh" }
        try outbox.enqueue(write)
        let second = await Changes.first(of: changes) { if case .sent = $0 { true } else { false } }

        guard case .refused(_, let error)? = first, case .sent(_, let status)? = second else {
            throw Failure("\(String(describing: first)) \(String(describing: second))")
        }
        #expect(error.statusCode == 401 && status == 200)
    }

    @Test("A damaged file is set aside and reported; the rest of the queue is kept and sent")
    func damagedFile() async throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        let server = try LateServer()
        do {
            let outbox = try Outbox<EndpointKinds.Public>(
                directory: fixture.directory,
                client: OutboxIntegrationTests.client(server.url)
            )
            for text in ["a", "b", "c"] {
                try outbox.enqueue(fixture.save(OutboxNote(id: "n1", text: text)), group: "n1")
            }
            await outbox.close()
        }
        let entries = fixture.directory.appendingPathComponent("entries")
        let second = try FileManager.default.contentsOfDirectory(atPath: entries.path).sorted()[1]
        let handle = try FileHandle(forWritingTo: entries.appendingPathComponent(second))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("x".utf8))
        try handle.close()

        let outbox = try Outbox<EndpointKinds.Public>(
            directory: fixture.directory,
            client: OutboxIntegrationTests.client(server.url),
            policy: OutboxIntegrationTests.fastPolicy
        )
        let changes = outbox.changes()

        #expect(outbox.damagedFiles == [second])
        let reported = await Changes.first(of: changes) { _ in true }
        guard case .damaged(let file)? = reported else { throw Failure("no damaged change first") }
        #expect(file == second)
        #expect(outbox.pending.count == 2)
        try await server.start()
        outbox.resume()
        _ = await Changes.count(of: changes, reaching: 2) { if case .sent = $0 { true } else { false } }
        #expect(try await fixture.applied(at: server.url)["n1"] == ["a", "c"])
    }

    @Test("Past its count, a write is refused before it is shown; past its age, it expires and rolls back")
    func bounds() async throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        let server = try LateServer()
        var policy = OutboxPolicy()
        policy.maximumCount = 1
        let outbox = try Outbox<EndpointKinds.Public>(
            directory: fixture.directory,
            client: OutboxIntegrationTests.client(server.url),
            policy: policy
        )
        let loader = OutboxFixture.loader()
        let first = OutboxNote(id: "n1", text: "first")
        try loader.update(first, sending: fixture.save(first), through: outbox)

        let full = #expect(throws: EndpointError.self) {
            try loader.update(OutboxNote(id: "n2", text: "second"), sending: fixture.save(first), through: outbox)
        }
        #expect(full?.kind == .outboxFull)
        #expect(outbox.pending.count == 1)
        #expect(await loader.states(forID: "n2").first { $0.value != nil }?.value?.text == "loaded")

        let expiring = OutboxFixture()
        defer { expiring.remove() }
        var short = OutboxPolicy()
        short.maximumAge = .zero
        let old = try Outbox<EndpointKinds.Public>(
            directory: expiring.directory,
            client: OutboxIntegrationTests.client(server.url),
            policy: short
        )
        let changes = old.changes()
        let expired = OutboxNote(id: "n3", text: "expired")
        try loader.update(expired, sending: expiring.save(expired), through: old)
        let change = await Changes.first(of: changes) { if case .expired = $0 { true } else { false } }
        guard case .expired(_, let error)? = change else { throw Failure("no expiry") }
        #expect(error.kind == .writeExpired)
        let state = try #require(await loader.states(forID: "n3").first { !$0.isWritePending })
        #expect(state.value?.text != "expired")
    }
}
