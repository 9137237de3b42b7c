import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A stub API of items that says each answer stays fresh for a minute (`Cache-Control: max-age=60`), counting
/// requests; batch requests (`?ids=1,2`) leave out ID 13.
private func cacheableServer() -> StubTransport {
    StubTransport { request in
        let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        let headers: HTTPHeaders = ["Content-Type": "application/json", "Cache-Control": "max-age=60"]
        if let ids = query.first(where: { $0.name == "ids" })?.value {
            let items = ids.split(separator: ",").compactMap { Int($0) }.filter { $0 != 13 }
                .map { Item(id: $0, name: "item \($0)") }
            return try .response(status: 200, headers: headers, body: JSONEncoder().encode(items))
        }
        let id = Int(request.url.lastPathComponent) ?? 0
        return try .response(
            status: 200,
            headers: headers,
            body: JSONEncoder().encode(Item(id: id, name: "item \(id)"))
        )
    }
}

private func batch(window: Duration? = nil) -> ModelBatch<EndpointKinds.Public, Item> {
    ModelBatch(window: window) { (ids: [Int]) -> Endpoint<EndpointKinds.Public, [Item]> in
        Endpoint(
            path: "items",
            queryItems: [URLQueryItem(name: "ids", value: ids.map(String.init).joined(separator: ","))]
        )
    }
}

/// What the store promises, each found broken in 0.5.0 and proven here.
@Suite(.timeLimit(.minutes(1))) struct ModelStorePromisesTests {
    let server = ItemServer()
    let clock = TestClock()

    func loader(policy: ModelStorePolicy = ModelStorePolicy()) -> ModelLoader<Item> {
        server.loader(clock: clock, policy: policy)
    }

    @Test("An invalidation that arrives while a refresh is in flight is not lost: the server is asked again")
    func invalidationDuringRefresh() async throws {
        let loader = loader()
        _ = try await loader.loadModel(withID: 1)
        let release = Gate()
        server.hold.withLock { $0 = release }
        let (refresh, _) = collect(loader.publisher(forID: 1))
        loader.invalidate(id: 1)
        while await server.requests.count < 2 { await Task.yield() }

        server.rename(1, "changed after the refresh read")
        loader.invalidate(id: 1)
        async let next = loader.loadModel(withID: 1)
        while loader.waiterCount(for: 1) < 3 { await Task.yield() }
        release.open()

        #expect(try await next.name == "changed after the refresh read")
        #expect(await server.requests.count == 3)
        refresh.cancel()
    }

    @Test("Retention runs on the client's clock while the loader is idle: the entry goes, and is loaded again")
    func retentionWhileIdle() async throws {
        let loader = loader(policy: ModelStorePolicy(freshness: .seconds(5), retention: .milliseconds(500)))
        _ = try await loader.loadModel(withID: 1)

        try await clock.waitForSleep(atLeast: .milliseconds(500), atMost: .milliseconds(500))
        clock.advance(by: .milliseconds(500))
        // The suite's time limit ends this if the entry never goes.
        while loader.store.counts.entries > 0 { await Task.yield() }

        #expect(loader.store.counts.entries == 0)
        _ = try await loader.loadModel(withID: 1)
        #expect(await server.requests.count == 2)
    }

    @Test("With an Equatable model, observers get no element for a put or a write's answer equal to what they have")
    func equalValuesSendNothing() async throws {
        let loader = loader()
        let (task, stream) = collect(loader.publisher(forID: 3))
        var values = stream.makeAsyncIterator()
        #expect(await values.next()?.name == "item 3")

        loader.put(Item(id: 3, name: "item 3"))
        try await loader.update(Item(id: 3, name: "item 3")) { Item(id: 3, name: "item 3") }
        loader.put(Item(id: 3, name: "changed"))

        #expect(await values.next()?.name == "changed")
        task.cancel()
    }

    @Test("A state shows a pending write until the server answers")
    func pendingWriteShows() async throws {
        let loader = loader()
        _ = try await loader.loadModel(withID: 4)
        let (task, stream) = collect(loader.states(forID: 4))
        var states = stream.makeAsyncIterator()
        #expect(await states.next()?.isWritePending == false)

        let answer = Gate()
        let write = Task {
            try await loader.update(Item(id: 4, name: "mine")) { () async throws(EndpointError) -> Item? in
                await answer.wait()
                return Item(id: 4, name: "the server's")
            }
        }
        let pending = await states.next()
        answer.open()
        _ = try await write.value
        let settled = await states.next()

        #expect(pending?.value?.name == "mine" && pending?.isWritePending == true)
        #expect(settled?.value?.name == "the server's" && settled?.isWritePending == false)
        task.cancel()
    }

    @Test("A stale entry is refreshed through the HTTP cache: a response the server declared fresh costs no request")
    func staleEntryUsesFreshHTTPCache() async throws {
        let transport = cacheableServer()
        let client = EndpointClient(environment: Fixture.environment, transport: transport, clock: clock)
        let loader = ModelLoader<Item>(client: client, policy: ModelStorePolicy(freshness: .seconds(1))) { .item($0) }
        _ = try await loader.loadModel(withID: 1)

        clock.advance(by: .seconds(2))
        for _ in 0..<8 { _ = try await loader.loadModel(withID: 1) }

        #expect(await transport.transportRequests.count == 1)
        loader.invalidate(id: 1)
        _ = try await loader.loadModel(withID: 1)
        #expect(await transport.transportRequests.count == 2, "an invalidation goes past the HTTP cache")
    }

    @Test("A batch loader's invalidation goes past the HTTP cache, as documented")
    func batchInvalidationRevalidates() async throws {
        let transport = cacheableServer()
        let client = EndpointClient(environment: Fixture.environment, transport: transport, clock: clock)
        let loader = ModelLoader<Item>(client: client, batch: batch())
        let (task, stream) = collect(loader.publisher(forID: 1))
        var values = stream.makeAsyncIterator()
        _ = await values.next()

        loader.invalidate(id: 1)
        // The suite's time limit ends this if the revalidation never comes.
        while await transport.transportRequests.count < 2 { await Task.yield() }

        #expect(await transport.transportRequests.count == 2)
        task.cancel()
    }

    @Test("One loadModels call of 4 IDs through a batch loader with the default window is one request, every time")
    func loadModelsIsOneBatch() async throws {
        for _ in 0..<24 {
            let transport = cacheableServer()
            let client = EndpointClient(
                environment: Fixture.environment,
                transport: transport,
                clock: clock,
                cache: nil
            )
            let loader = ModelLoader<Item>(client: client, batch: batch())

            let models = try await loader.loadModels(withIDs: [1, 2, 3, 4])

            #expect(models.map(\.id) == [1, 2, 3, 4])
            #expect(await transport.transportRequests.count == 1)
        }
    }

    @Test("loadModelResults keeps every model that loaded beside the failed ID's error, which names the ID and request")
    func partialResults() async throws {
        let transport = cacheableServer()
        let client = EndpointClient(environment: Fixture.environment, transport: transport, clock: clock, cache: nil)
        let loader = ModelLoader<Item>(client: client, batch: batch())

        let results = await loader.loadModelResults(withIDs: [1, 13, 2])
        let thrown = try await #require(throws: EndpointError.self) { try await loader.loadModels(withIDs: [13]) }

        #expect(try results[0].get().id == 1)
        #expect(try results[2].get().id == 2)
        guard case .failure(let error) = results[1] else {
            Issue.record("ID 13 is not in the answer, yet it loaded")
            return
        }
        #expect(error.kind == .modelNotFound)
        #expect(error.description.contains("13"))
        #expect(error.request?.redactedURL.contains("/v1/items?ids=") == true)
        #expect(thrown.kind == .modelNotFound && thrown.request != nil)
    }

    @Test("Releasing a loader and its last observer mid-load cancels the background load: nothing runs on")
    func releasedLoaderCancelsBackgroundWork() async throws {
        let arrived = Gate()
        let cancelled = Gate()
        let transport = StubTransport { _ in
            arrived.open()
            await withTaskCancellationHandler {
                await Gate().wait()
            } onCancel: {
                cancelled.open()
            }
            return .status(503)
        }
        let client = EndpointClient(environment: Fixture.environment, transport: transport, clock: clock, cache: nil)
        var loader: ModelLoader<Item>? = ModelLoader<Item>(client: client) { .item($0) }
        let observer = Task { [publisher = loader?.publisher(forID: 1)] in
            guard let publisher else { return }
            for try await _ in publisher {}
        }
        await arrived.wait()

        observer.cancel()
        _ = await observer.result
        loader = nil

        await cancelled.wait()
        #expect(await transport.transportRequests.count == 1)
    }
}
