import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A stub API of items whose names the test changes, counting requests per path; `failing` makes it answer 500.
final class ItemServer: Sendable {
    let names = Locked([Int: String]())
    let failing = Locked(false)
    let hold = Locked<Gate?>(nil)
    let transport: StubTransport

    init() {
        let names = self.names
        let failing = self.failing
        let hold = self.hold
        transport = StubTransport { request in
            // What the server reads is read as the request arrives; a held request answers it later.
            let snapshot = names.withLock { $0 }
            if let gate = hold.withLock({ $0 }) {
                hold.withLock { $0 = nil }
                await gate.wait()
            }
            if failing.withLock({ $0 }) { return .status(500) }
            let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            if let ids = query.first(where: { $0.name == "ids" })?.value {
                let items = ids.split(separator: ",").compactMap { Int($0) }.filter { $0 != 13 }.map { id in
                    Item(id: id, name: snapshot[id] ?? "item \(id)")
                }
                return try .response(
                    status: 200,
                    headers: ["Content-Type": "application/json"],
                    body: JSONEncoder().encode(items)
                )
            }
            let id = Int(request.url.lastPathComponent) ?? 0
            let item = Item(id: id, name: snapshot[id] ?? "item \(id)")
            return try .response(
                status: 200,
                headers: ["Content-Type": "application/json"],
                body: JSONEncoder().encode(item)
            )
        }
    }

    func rename(_ id: Int, _ name: String) { names.withLock { $0[id] = name } }

    /// A loader of this server's items through a client with no HTTP cache, on `clock`.
    func loader(clock: TestClock, policy: ModelStorePolicy = ModelStorePolicy()) -> ModelLoader<Item> {
        let client = EndpointClient(environment: Fixture.environment, transport: transport, clock: clock, cache: nil)
        return ModelLoader<Item>(client: client, policy: policy) { .item($0) }
    }
    var requests: [URL] { get async { await transport.transportRequests.map(\.url) } }
}

extension ModelLoader {
    /// The observers of `id`'s request, for tests that wait for a subscription or an unsubscription.
    fileprivate func observers(of url: String) -> Int { store.observerCount(for: .request(method: "GET", url: url)) }
}

/// Iterates `sequence` in a task, reporting each element through a stream the test reads.
func collect<S: AsyncSequence & Sendable>(_ sequence: S) -> (Task<Void, Never>, AsyncStream<S.Element>)
where S.Element: Sendable {
    let (stream, continuation) = AsyncStream<S.Element>.makeStream()
    let task = Task {
        do {
            for try await element in sequence { continuation.yield(element) }
        } catch {}
        continuation.finish()
    }
    return (task, stream)
}

@Suite(.timeLimit(.minutes(1))) struct ModelStoreTests {
    let server = ItemServer()
    let clock = TestClock()

    func loader(policy: ModelStorePolicy = ModelStorePolicy()) -> ModelLoader<Item> {
        server.loader(clock: clock, policy: policy)
    }

    @Test(
        "An observer gets the value, then a put, then an invalidation's refetch; a revalidation that changed nothing sends nothing new"
    )
    func liveObservation() async throws {
        let loader = loader()
        let (task, stream) = collect(loader.publisher(forID: 1))
        var values = stream.makeAsyncIterator()
        #expect(await values.next()?.name == "item 1")

        loader.put(Item(id: 1, name: "put"))
        #expect(await values.next()?.name == "put")

        server.rename(1, "renamed on the server")
        loader.invalidate(id: 1)
        #expect(await values.next()?.name == "renamed on the server")
        #expect(await server.requests.count == 2)
        task.cancel()
        await task.value
        #expect(loader.observers(of: "https://api.test/v1/items/1") == 0)
    }

    @Test("Loading, value and error at once: a failed refresh keeps the value and says why")
    func statesTogether() async throws {
        let loader = loader()
        _ = try await loader.loadModel(withID: 2)
        let (task, stream) = collect(loader.states(forID: 2))
        var states = stream.makeAsyncIterator()
        let first = await states.next()
        #expect(first?.value?.name == "item 2" && first?.isLoading == false)

        server.failing.withLock { $0 = true }
        loader.invalidate(id: 2)
        let loading = await states.next()
        #expect(loading?.value?.name == "item 2" && loading?.isLoading == true)
        let failed = await states.next()
        #expect(failed?.value?.name == "item 2" && failed?.isLoading == false)
        #expect(failed?.error?.statusCode == 500)
        task.cancel()
    }

    @Test("The value publisher throws only when it has no value to show and the load failed")
    func publisherThrowsWithoutAValue() async throws {
        let loader = loader()
        server.failing.withLock { $0 = true }
        let error = await #expect(throws: EndpointError.self) {
            for try await _ in loader.publisher(forID: 21) {}
        }
        #expect(error?.statusCode == 500)
    }

    @Test("Invalidation by predicate refetches only the observed entries; the rest load when next asked for")
    func invalidationRefetchesObservedOnly() async throws {
        let loader = loader()
        _ = try await loader.loadModels(withIDs: [1, 2, 3, 4])
        let (task, stream) = collect(loader.publisher(forID: 2))
        var values = stream.makeAsyncIterator()
        _ = await values.next()
        #expect(await server.requests.count == 4)

        server.rename(2, "new 2")
        loader.invalidate { $0 % 2 == 0 }
        #expect(await values.next()?.name == "new 2")
        #expect(await server.requests.count == 5, "item 4 is stale but unobserved: not fetched yet")
        _ = try await loader.loadModel(withID: 4)
        _ = try await loader.loadModel(withID: 3)
        #expect(await server.requests.count == 6, "item 4 loads when asked; item 3 is still fresh")
        task.cancel()
    }

    @Test("An optimistic update reaches observers before the request is sent, and is rolled back when it fails")
    func optimisticRollback() async throws {
        let loader = loader()
        let (task, stream) = collect(loader.publisher(forID: 5))
        var values = stream.makeAsyncIterator()
        #expect(await values.next()?.name == "item 5")

        let seenBeforeSending = Gate()
        let update = Task {
            try await loader.update(Item(id: 5, name: "optimistic")) { () async throws(EndpointError) -> Item? in
                await seenBeforeSending.wait()
                throw EndpointError(.transportFailed, "the write failed")
            }
        }
        #expect(await values.next()?.name == "optimistic")
        seenBeforeSending.open()
        await #expect(throws: EndpointError.self) { try await update.value }
        #expect(await values.next()?.name == "item 5")
        #expect(loader.store.value(for: .request(method: "GET", url: "https://api.test/v1/items/5"))?.name == "item 5")

        // The answer waits until the optimistic value was seen: an observer gets the newest value, and one that
        // is slow to look (under Thread Sanitizer) would otherwise see only the answer.
        let answer = Gate()
        let saving = Task {
            try await loader.update(Item(id: 5, name: "mine")) { () async throws(EndpointError) -> Item? in
                await answer.wait()
                return Item(id: 5, name: "the server's")
            }
        }
        #expect(await values.next()?.name == "mine")
        answer.open()
        #expect(try await saving.value.name == "the server's")
        #expect(await values.next()?.name == "the server's")
        task.cancel()
    }

    @Test("A failed optimistic write falls back to the newest value the server confirmed, not the one before it")
    func rollbackToNewestConfirmed() async throws {
        // Found by the randomized test: the rollback put back the value from before the write, older than what a
        // load had confirmed meanwhile.
        let loader = loader()
        _ = try await loader.loadModel(withID: 8)
        let (task, stream) = collect(loader.publisher(forID: 8))
        var values = stream.makeAsyncIterator()
        #expect(await values.next()?.name == "item 8")

        let release = Gate()
        let update = Task {
            try await loader.update(Item(id: 8, name: "optimistic")) { () async throws(EndpointError) -> Item? in
                await release.wait()
                throw EndpointError(.transportFailed, "the write failed")
            }
        }
        #expect(await values.next()?.name == "optimistic")
        server.rename(8, "changed on the server")
        loader.invalidate(id: 8)
        let key = LoadKey<Int>.request(method: "GET", url: "https://api.test/v1/items/8")
        // The signal: the invalidation's load has confirmed the server's value.
        while loader.store.confirmedValue(for: key)?.name != "changed on the server" { await Task.yield() }
        // The optimistic value stays on show until the write ends.
        #expect(loader.store.value(for: key)?.name == "optimistic")
        release.open()
        await #expect(throws: EndpointError.self) { try await update.value }
        #expect(await values.next()?.name == "changed on the server")
        task.cancel()
    }

    @Test(
        "A load a write overtook is sent again: callers get a value read after the write, and no observer sees the older read"
    )
    func loadNeverOverwritesANewerWrite() async throws {
        let loader = loader()
        let gate = Gate()
        server.hold.withLock { $0 = gate }
        let load = Task { try await loader.loadModel(withID: 6) }
        while await server.requests.isEmpty { await Task.yield() }
        // The held request read "item 6"; then the server changed, and the app put the server's answer.
        server.rename(6, "after the write")
        loader.put(Item(id: 6, name: "after the write"))
        let (task, stream) = collect(loader.publisher(forID: 6))
        var values = stream.makeAsyncIterator()
        #expect(await values.next()?.name == "after the write")
        gate.open()
        #expect(try await load.value.name == "after the write")
        #expect(await server.requests.count == 2, "the overtaken load was sent again")
        #expect(
            loader.store.value(for: .request(method: "GET", url: "https://api.test/v1/items/6"))?.name
                == "after the write"
        )
        task.cancel()
    }

    @Test("A failed load never replaces a value")
    func failureKeepsValue() async throws {
        let loader = loader(policy: ModelStorePolicy(freshness: .seconds(1)))
        _ = try await loader.loadModel(withID: 7)
        clock.advance(by: .seconds(2))
        server.failing.withLock { $0 = true }
        await #expect(throws: EndpointError.self) { try await loader.loadModel(withID: 7) }
        #expect(loader.store.value(for: .request(method: "GET", url: "https://api.test/v1/items/7"))?.name == "item 7")
    }

    @Test("Retention: an unobserved entry goes after its retention; the count bound drops the least recently used")
    func retention() async throws {
        let loader = loader(
            policy: ModelStorePolicy(freshness: .seconds(600), retention: .seconds(60), maximumCount: 3)
        )
        for id in 1...3 { _ = try await loader.loadModel(withID: id) }
        _ = try await loader.loadModel(withID: 1)  // a use: 2 is now the least recently used
        _ = try await loader.loadModel(withID: 4)
        #expect(loader.store.counts.entries == 3)
        _ = try await loader.loadModel(withID: 1)
        #expect(await server.requests.count == 4)
        _ = try await loader.loadModel(withID: 2)
        #expect(await server.requests.count == 5, "2 was dropped, so it loads again")

        clock.advance(by: .seconds(61))
        loader.store.sweepNow()
        #expect(loader.store.counts.entries == 0)
    }

    @Test(
        "Persistence: a new loader on the directory starts with the values kept, shows them before any request, then revalidates"
    )
    func persistence() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ek-models-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: server.transport,
            clock: clock,
            cache: nil
        )
        let first = ModelLoader<Item>(client: client, persistence: try DiskModelPersistence(directory: folder)) {
            .item($0)
        }
        _ = try await first.loadModel(withID: 1)
        first.put(Item(id: 2, name: "put"))

        server.rename(1, "newer on the server")
        let gate = Gate()
        server.hold.withLock { $0 = gate }
        let later = ModelLoader<Item>(client: client, persistence: try DiskModelPersistence(directory: folder)) {
            .item($0)
        }
        let (task, stream) = collect(later.publisher(forID: 1))
        var values = stream.makeAsyncIterator()
        #expect(await values.next()?.name == "item 1", "the kept value, before the held request is answered")
        gate.open()
        #expect(await values.next()?.name == "newer on the server")
        #expect(later.store.value(for: .request(method: "GET", url: "https://api.test/v1/items/2"))?.name == "put")
        task.cancel()

        // Files are named by keyed hashes, and a torn one is ignored.
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("v1/models").path)
        #expect(names.count == 2 && names.allSatisfy { !$0.contains("items") && $0.count == 40 })
        try Data("EKM1{\"id\": 9".utf8).write(to: folder.appendingPathComponent("v1/models/torn"))
        #expect(try DiskModelPersistence(directory: folder).storedModels().count == 2)
    }

    @Test("The disk persistence keeps at most its maximum count, the least recently saved going first")
    func persistenceBound() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ek-models-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let persistence = try DiskModelPersistence(directory: folder, maximumCount: 10)
        for index in 0..<25 { persistence.save(Data("\(index)".utf8), forKey: "key \(index)") }
        persistence.trim()
        let kept = Set(persistence.storedModels().map { String(decoding: $0, as: UTF8.self) })
        #expect(kept.count == 10)
        #expect(kept.contains("24"))
    }

    @Test("The disk persistence keeps at most its maximum size in bytes, the least recently saved going first")
    func persistenceSizeBound() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ek-models-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let persistence = try DiskModelPersistence(directory: folder, maximumSize: 10_000)
        let model = Data(repeating: UInt8(ascii: "x"), count: 992)  // 1,000 bytes a file with its marks

        for index in 0..<25 { persistence.save(model, forKey: "key \(index)") }
        persistence.save(Data(repeating: 1, count: 20_000), forKey: "too large")
        persistence.trim()

        let sizes = persistence.storedModels().map(\.count)
        #expect(sizes.count == 10 && sizes.allSatisfy { $0 == 992 }, "\(sizes.count) models kept")
    }

    @Test("loadModels returns the models in the order of the IDs, repeats included, one request per distinct ID")
    func loadModelsInOrder() async throws {
        let loader = loader()
        let items = try await loader.loadModels(withIDs: [3, 1, 3, 2])
        #expect(items.map(\.id) == [3, 1, 3, 2])
        #expect(await server.requests.count == 3)
    }

    @Test("Batches: IDs asked at once go out together in requests of the maximum size; a missing ID fails alone")
    func batches() async throws {
        let client = EndpointClient(environment: Fixture.environment, transport: server.transport, cache: nil)
        let loader = ModelLoader<Item>(
            client: client,
            batch: ModelBatch(maximumSize: 4) { (ids: [Int]) -> Endpoint<EndpointKinds.Public, [Item]> in
                let list = ids.map(String.init).joined(separator: ",")
                return Endpoint(path: "items", queryItems: [URLQueryItem(name: "ids", value: list)])
            }
        )
        let ids = Array(10...19)  // 13 is missing on the server
        let results = await withTaskGroup(of: (Int, Result<Item, EndpointError>).self) { group in
            for id in ids + [11, 12] {
                group.addTask {
                    do throws(EndpointError) { return (id, .success(try await loader.loadModel(withID: id))) } catch {
                        return (id, .failure(error))
                    }
                }
            }
            return await group.reduce(into: [(Int, Result<Item, EndpointError>)]()) { $0.append($1) }
        }
        for (id, result) in results {
            switch result {
            case .success(let item): #expect(id != 13 && item.id == id)
            case .failure(let error): #expect(id == 13 && error.kind == .modelNotFound)
            }
        }
        let sent = await server.requests
        #expect(sent.count == 3, "10 distinct IDs in batches of 4: \(sent)")
        #expect(try await loader.loadModels(withIDs: [19, 10, 11]).map(\.id) == [19, 10, 11])
        #expect(await server.requests.count == 3, "all fresh: nothing sent")
    }

    @Test("A batch sends its IDs in one order, numbers by value, whatever order they were asked in")
    func batchOrder() async throws {
        let client = EndpointClient(environment: Fixture.environment, transport: server.transport, cache: nil)
        let loader = ModelLoader<Item>(
            client: client,
            batch: ModelBatch(maximumSize: 100) { (ids: [Int]) -> Endpoint<EndpointKinds.Public, [Item]> in
                Endpoint(
                    path: "items",
                    queryItems: [URLQueryItem(name: "ids", value: ids.map(String.init).joined(separator: ","))]
                )
            }
        )

        _ = await loader.loadModelResults(withIDs: [12, 3, 10, 1, 7, 3])

        let sent = await server.requests
        #expect(sent.count == 1)
        #expect(sent.first?.query == "ids=1%2C3%2C7%2C10%2C12")
    }

    @Test("1,000 IDs from 1,000 tasks within one window, batches of 100: exactly 10 requests")
    func thousandInOneWindow() async throws {
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: server.transport,
            clock: clock,
            cache: nil
        )
        let loader = ModelLoader<Item>(
            client: client,
            batch: ModelBatch(maximumSize: 100, window: .milliseconds(5)) {
                (ids: [Int]) -> Endpoint<EndpointKinds.Public, [Item]> in
                Endpoint(
                    path: "items",
                    queryItems: [URLQueryItem(name: "ids", value: ids.map(String.init).joined(separator: ","))]
                )
            }
        )
        let loaded = try await withThrowingTaskGroup(of: Int.self) { group in
            for id in 1000..<2000 { group.addTask { try await loader.loadModel(withID: id).id } }
            // The window is on the test's clock: it closes when all 1,000 have joined and the batch's timer waits
            // on the clock (a timer that started after the clock moved would wait for the next move forever).
            while loader.batcher?.pendingCount ?? 0 < 1_000 { await Task.yield() }
            try await clock.waitForSleep(atLeast: .milliseconds(5), atMost: .milliseconds(5))
            clock.advance(by: .milliseconds(5))
            return try await group.reduce(into: Set<Int>()) { $0.insert($1) }
        }
        #expect(loaded == Set(1000..<2000))
        #expect(await server.requests.count == 10)
    }

    @Test("2,000 observers over 100 IDs: 100 loads; all fresh: none; all stale: exactly 100 refetches")
    func manyObservers() async throws {
        let loader = loader(policy: ModelStorePolicy(freshness: .seconds(3600)))
        let observed = Locked(0)
        let everyoneHasAValue = Gate()
        let observers = (0..<2_000).map { index in
            Task {
                var first = true
                for try await _ in loader.publisher(forID: index % 100) where first {
                    first = false
                    if observed.withLock({ count in
                        count += 1
                        return count
                    }) == 2_000 {
                        everyoneHasAValue.open()
                    }
                }
            }
        }
        await everyoneHasAValue.wait()
        #expect(await server.requests.count == 100)
        _ = try await loader.loadModels(withIDs: Array(0..<100))
        #expect(await server.requests.count == 100)
        loader.invalidateAll()
        while await server.requests.count < 200 { await Task.yield() }
        for observer in observers { observer.cancel() }
        for observer in observers { _ = await observer.result }
        #expect(await server.requests.count == 200)
        #expect(loader.store.counts.observers == 0)
    }
}
