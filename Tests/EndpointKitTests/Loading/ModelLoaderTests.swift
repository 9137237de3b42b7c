import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(1))) struct ModelLoaderTests {
    @Test("A model is loaded by ID through the endpoint the closure names")
    func loadByID() async throws {
        let transport = StubTransport(replies: [.json(#"{"id": 42, "name": "Towel"}"#)])
        let client = EndpointClient(environment: Fixture.environment, transport: transport)
        let loader = ModelLoader<Item>(client: client) { id in .item(id) }

        let item = try await loader.loadModel(withID: 42)

        #expect(item == Item(id: 42, name: "Towel"))
        #expect(await transport.requests.first?.url?.path == "/v1/items/42")
    }

    @Test("A loader for a private kind sends the request data it was given")
    func privateLoader() async throws {
        let transport = StubTransport(replies: [.json(#"{"id": 7, "name": "Key"}"#)])
        let client = EndpointClient(environment: Fixture.environment, transport: transport)
        let loader = ModelLoader<Item>(client: client, using: AccessToken("s3cret")) { id in
            Endpoint<EndpointKinds.Private, Item>(path: "private/items/\(id)")
        }

        _ = try await loader.loadModel(withID: 7)

        #expect(await transport.requests.first?.value(forHTTPHeaderField: "Authorization") == "Bearer s3cret")
    }

    @Test("The publisher is live: the value now, then each change, and stopping the loop unsubscribes")
    func publisher() async throws {
        let transport = StubTransport(replies: [.json(#"{"id": 1, "name": "a"}"#)])
        let loader = ModelLoader<Item>(client: EndpointClient(environment: Fixture.environment, transport: transport)) {
            id in .item(id)
        }

        var names: [String] = []
        for try await item in loader.publisher(forID: 1) {
            names.append(item.name)
            if names.count == 1 { loader.put(Item(id: 1, name: "b")) } else { break }
        }
        // A second subscriber gets the stored value at once, with no request.
        for try await item in loader.publisher(forID: 1) {
            names.append(item.name)
            break
        }

        #expect(names == ["a", "b", "b"])
        #expect(await transport.requests.count == 1)
        #expect(loader.store.observerCount(for: .request(method: "GET", url: "https://api.test/v1/items/1")) == 0)
    }

    @Test("Errors keep their context")
    func notFound() async throws {
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: StubTransport(replies: [.json(#"{"error": "missing"}"#, status: 404)])
        )
        let loader = ModelLoader<Item>(client: client) { id in .item(id) }

        let error = try await #require(throws: EndpointError.self) { try await loader.loadModel(withID: 404) }

        #expect(error.kind == .unacceptableStatus)
        #expect(error.statusCode == 404)
    }
}

@Suite(.timeLimit(.minutes(1))) struct ModelLoaderSharingTests {
    /// Answers item requests after `delay`, counting them.
    static func slowItems(delay: Duration) -> StubTransport {
        StubTransport { request in
            try await Task.sleep(for: delay)
            let id = request.url.lastPathComponent
            return .json(#"{"id": \#(id), "name": "item \#(id)"}"#)
        }
    }

    @Test("Concurrent loads of one ID share a single request; other IDs get their own")
    func sharing() async throws {
        // The server answers only once all 20 callers are waiting, whichever task started first.
        let everyoneWaits = Gate()
        let transport = StubTransport { request in
            await everyoneWaits.wait()
            let id = request.url.lastPathComponent
            return .json(#"{"id": \#(id), "name": "item \#(id)"}"#)
        }
        let loader = ModelLoader<Item>(client: EndpointClient(environment: Fixture.environment, transport: transport)) {
            id in .item(id)
        }

        let names = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<20 { group.addTask { try await loader.loadModel(withID: index % 2 == 0 ? 1 : 2).name } }
            while loader.waiterCount(for: 1) + loader.waiterCount(for: 2) < 20 { await Task.yield() }
            everyoneWaits.open()
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }

        #expect(names.filter { $0 == "item 1" }.count == 10)
        #expect(names.filter { $0 == "item 2" }.count == 10)
        #expect(await transport.requests.count == 2)
    }

    @Test("A loaded value is served with no request while fresh; once stale, the next call loads again")
    func freshness() async throws {
        let transport = Self.slowItems(delay: .zero)
        let clock = TestClock()
        let client = EndpointClient(environment: Fixture.environment, transport: transport, clock: clock, cache: nil)
        let loader = ModelLoader<Item>(client: client, policy: ModelStorePolicy(freshness: .seconds(5))) { .item($0) }

        _ = try await loader.loadModel(withID: 3)
        clock.advance(by: .seconds(4))
        _ = try await loader.loadModel(withID: 3)
        #expect(await transport.requests.count == 1)
        clock.advance(by: .seconds(2))
        _ = try await loader.loadModel(withID: 3)
        #expect(await transport.requests.count == 2)
    }

    @Test("A cancelled caller stops waiting without the request finishing, while the other still gets the model")
    func oneCancels() async throws {
        // The server answers only once the cancelled caller has returned: a caller that had to wait for the
        // shared request would never return, and the time limit would fail the test.
        let gate = Gate()
        let transport = StubTransport { _ in
            await gate.wait()
            return .json(#"{"id": 7, "name": "item 7"}"#)
        }
        let loader = ModelLoader<Item>(client: EndpointClient(environment: Fixture.environment, transport: transport)) {
            id in .item(id)
        }

        let staying = Task { try await loader.loadModel(withID: 7) }
        let leaving = Task { try await loader.loadModel(withID: 7) }
        while loader.waiterCount(for: 7) < 2 { await Task.yield() }
        leaving.cancel()
        let left = await leaving.result
        gate.open()
        let stayed = try await staying.value

        let error = try #require(throws: EndpointError.self) { try left.get() }
        #expect(error.kind == .cancelled)
        #expect(stayed.name == "item 7")
        #expect(await transport.requests.count == 1)
    }

    @Test("When every caller cancels, the shared request is cancelled too")
    func allCancel() async throws {
        let started = Locked(0)
        let cancelled = Locked(0)
        let sharedRequestCancelled = Gate()
        let transport = StubTransport { _ in
            started.withLock { $0 += 1 }
            await Gate().wait()  // never opened: only cancellation ends it
            cancelled.withLock { $0 += 1 }
            sharedRequestCancelled.open()
            throw CancellationError()
        }
        let loader = ModelLoader<Item>(client: EndpointClient(environment: Fixture.environment, transport: transport)) {
            id in .item(id)
        }

        let callers = (0..<5).map { _ in Task { try await loader.loadModel(withID: 9) } }
        while loader.waiterCount(for: 9) < 5 || started.withLock({ $0 }) == 0 { await Task.yield() }
        for caller in callers { caller.cancel() }
        for caller in callers { _ = await caller.result }
        await sharedRequestCancelled.wait()
        let next = Task { try await loader.loadModel(withID: 9) }
        while started.withLock({ $0 }) < 2 { await Task.yield() }
        next.cancel()
        _ = await next.result

        #expect(started.withLock { $0 } == 2, "a call after everyone left must start a new request")
        #expect(cancelled.withLock { $0 } >= 1, "the abandoned shared request was not cancelled")
    }

    private struct Tag: Decodable, Identifiable, Sendable {
        var id: String
        var path: String
    }

    @Test(
        "Two loads at once of canonically equivalent IDs (é, e + U+0301) that reach different URLs each get their own"
    )
    func canonicallyEquivalentIDsLoadApart() async throws {
        let gate = Gate()
        let transport = StubTransport { request in
            await gate.wait()
            let path = request.url.path
            return .json(#"{"id": "x", "path": "\#(path)"}"#)
        }
        let loader = ModelLoader<Tag>(client: EndpointClient(environment: Fixture.environment, transport: transport)) {
            id in Endpoint<EndpointKinds.Public, Tag>(path: "tags/\(id)")
        }
        let composed = "\u{E9}"
        let decomposed = "e\u{301}"

        let first = Task { try await loader.loadModel(withID: composed) }
        while loader.waiterCount(for: composed) < 1 { await Task.yield() }
        let second = Task { try await loader.loadModel(withID: decomposed) }
        while await transport.transportRequests.count < 2 { await Task.yield() }
        gate.open()
        let (one, other) = (try await first.value, try await second.value)

        #expect(composed == decomposed, "Swift finds the two IDs equal: the point of this test")
        #expect(one.path == "/v1/tags/\u{E9}")
        #expect(other.path == "/v1/tags/e\u{301}")
    }

    @Test("A loader with a loading function of its own shares loads only for IDs that are the same scalars")
    func customLoaderComparesExactly() async throws {
        let gate = Gate()
        let calls = Locked([String]())
        let loader = ModelLoader<Tag> { id async throws(EndpointError) -> Tag in
            calls.withLock { $0.append(id) }
            await gate.wait()
            return Tag(id: id, path: id)
        }

        let first = Task { try await loader.loadModel(withID: "\u{E9}") }
        let second = Task { try await loader.loadModel(withID: "e\u{301}") }
        while calls.withLock({ $0.count }) < 2 { await Task.yield() }
        gate.open()
        let (one, other) = (try await first.value, try await second.value)

        #expect(one.path.unicodeScalars.elementsEqual("\u{E9}".unicodeScalars))
        #expect(other.path.unicodeScalars.elementsEqual("e\u{301}".unicodeScalars))
    }
}
