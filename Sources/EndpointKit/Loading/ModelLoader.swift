import Foundation

/// Loads any `Identifiable & Decodable` model by its ID, keeps it, and keeps everyone who shows it up to date: a
/// model store that runs anywhere Swift runs, with no UI framework.
///
///     let loader = ModelLoader<Item>(client: client) { id in .item(id) }
///     let item = try await loader.loadModel(withID: 42)                      // one GET; again within 5 s: none
///     for try await item in loader.publisher(forID: 42) { show(item) }      // now, then every change
///     loader.invalidate(id: 42)                                              // observed: fetched again
///     try await loader.update(edited) { try await client.response(for: .save(edited), using: token) }
///
/// - **Freshness and retention** (``ModelStorePolicy``): a value younger than its freshness is served with no
///   request; an older one is refreshed with an ordinary `GET` through the client's ``HTTPCache`` (a response the
///   server still declares fresh costs no request; a 304 renews the value and changes nothing). An entry nobody
///   observes is dropped after its retention, on the client's clock even when the loader is idle, and under a
///   count bound, least recently used first.
/// - **Live observation**: ``publisher(forID:)`` yields the value now, then every change (a load, a revalidation
///   that changed it, an invalidation's refetch, a write) until the loop stops; ``states(forID:)`` adds loading
///   and the last error beside the value.
/// - **Invalidation** by ID, by predicate and all marks entries stale and fetches again only those someone
///   observes.
/// - **Writes**: ``put(_:)`` a model the app got elsewhere (a `PATCH`'s answer, the items of a list);
///   ``update(_:sending:)`` shows a value to every observer before the request is sent, and rolls it back if the
///   request fails. No observer ever sees an older value after a newer one.
/// - **Batches** (``ModelBatch``): IDs asked for together go out in one request.
/// - **Shared loads**: concurrent calls for one request share it, keyed by the request sent, so two IDs Swift
///   finds equal but that reach different URLs ("é" and "e\u{301}") load apart. A caller whose task is
///   cancelled stops waiting at once; the request is cancelled when nobody waits for it.
public struct ModelLoader<Model: Identifiable & Decodable & Sendable>: Sendable where Model.ID: Sendable {
    /// Where models come from: how to load an ID, what makes two loads the same, and the batcher, if any.
    let source: ModelSource<Model>
    private let inFlight = SharedLoads<LoadKey<Model.ID>, Model>()
    let store: ModelStore<Model>
    /// What makes two loads the same: the request they send, not `Model.ID`'s `==` (canonically equivalent
    /// string IDs are equal, yet percent-encode to different URLs).
    var key: @Sendable (Model.ID) -> LoadKey<Model.ID> { source.key }
    /// The batch endpoint's gatherer, for a loader that has one.
    var batcher: ModelBatcher<Model>? { source.batcher }
    /// Keys an observer's subscription has started a load for, until it ends: a thousand observers subscribing
    /// at once start one task, not a thousand.
    private let backgroundLoads = Locked(Set<LoadKey<Model.ID>>())
    /// Owns the loads started in the background (an observer's first load, an invalidation's refetch): they are
    /// cancelled when the last copy of the loader goes.
    let background = TaskOwner()

    /// How long values stay fresh and entries are kept.
    public var policy: ModelStorePolicy { store.policy }

    /// How many callers wait for the load of `id` now.
    func waiterCount(for id: Model.ID) -> Int { inFlight.waiterCount(for: key(id)) }

    /// Creates a loader for endpoints whose kind needs no request data.
    ///
    /// - Parameters:
    ///   - client: The client that sends the requests.
    ///   - policy: Freshness, retention and the count bound.
    ///   - endpoint: The endpoint that returns the model with a given ID.
    public init<Kind: EndpointKind>(
        client: EndpointClient,
        policy: ModelStorePolicy = ModelStorePolicy(),
        endpoint: @escaping @Sendable (Model.ID) -> Endpoint<Kind, Model>
    ) where Kind.RequestData == Void {
        self.init(client: client, using: (), policy: policy, endpoint: endpoint)
    }

    /// Creates a loader that sends every request with `requestData`, e.g. an ``AccessToken``.
    ///
    /// - Parameters:
    ///   - client: The client that sends the requests.
    ///   - requestData: What the endpoints' kind needs.
    ///   - policy: Freshness, retention and the count bound.
    ///   - endpoint: The endpoint that returns the model with a given ID.
    public init<Kind: EndpointKind>(
        client: EndpointClient,
        using requestData: Kind.RequestData,
        policy: ModelStorePolicy = ModelStorePolicy(),
        endpoint: @escaping @Sendable (Model.ID) -> Endpoint<Kind, Model>
    ) {
        self.init(client: client, using: requestData, policy: policy, keeping: nil, endpoint: endpoint)
    }

    /// The endpoint loader, with what a persistence needs: a save for each confirmed value, and the values kept.
    init<Kind: EndpointKind>(
        client: EndpointClient,
        using requestData: Kind.RequestData,
        policy: ModelStorePolicy,
        keeping persistence: Keeping?,
        endpoint: @escaping @Sendable (Model.ID) -> Endpoint<Kind, Model>
    ) {
        self.init(
            source: .endpoint(client: client, using: requestData, endpoint: endpoint),
            policy: policy,
            keeping: persistence
        )
    }

    /// Every loader: its source, its policy, and what a persistence kept and saves.
    init(source: ModelSource<Model>, policy: ModelStorePolicy, keeping persistence: Keeping? = nil) {
        self.source = source
        store = ModelStore(policy: policy, clock: source.clock, confirmed: persistence?.save)
        for model in persistence?.kept ?? [] { store.restore(model, for: source.key(model.id)) }
    }

    /// What a ``ModelPersistence`` gives a loader: a save of each confirmed value under its key, and the models
    /// kept from an earlier run.
    struct Keeping: Sendable {
        var save: @Sendable (LoadKey<Model.ID>, Model) -> Void
        var kept: [Model]
    }

    /// Creates a loader that loads through a batch endpoint: see ``ModelBatch``.
    ///
    /// - Parameters:
    ///   - client: The client that sends the requests.
    ///   - requestData: What the batch endpoint's kind needs.
    ///   - policy: Freshness, retention and the count bound.
    ///   - batch: The batch endpoint, its maximum size and its window.
    public init<Kind: EndpointKind>(
        client: EndpointClient,
        using requestData: Kind.RequestData,
        policy: ModelStorePolicy = ModelStorePolicy(),
        batch: ModelBatch<Kind, Model>
    ) {
        self.init(source: .batch(client: client, using: requestData, batch: batch), policy: policy)
    }

    /// Creates a loader through a batch endpoint whose kind needs no request data.
    public init<Kind: EndpointKind>(
        client: EndpointClient,
        policy: ModelStorePolicy = ModelStorePolicy(),
        batch: ModelBatch<Kind, Model>
    ) where Kind.RequestData == Void {
        self.init(client: client, using: (), policy: policy, batch: batch)
    }

    /// Creates a loader from any loading function, e.g. one that reads a database.
    ///
    /// Concurrent calls share a load when their IDs are equal and also print the same, Unicode scalar for
    /// scalar: string IDs that are only canonically equivalent load apart. Every load counts as a change.
    ///
    /// - Parameters:
    ///   - policy: Freshness, retention and the count bound.
    ///   - clock: The clock freshness and retention are measured on.
    ///   - load: Loads the model with an ID.
    public init(
        policy: ModelStorePolicy = ModelStorePolicy(),
        clock: any Clock<Duration> = ContinuousClock(),
        load: @escaping @Sendable (Model.ID) async throws(EndpointError) -> Model
    ) {
        self.init(source: .function(clock: clock, load: load), policy: policy)
    }

    // MARK: Reading

    /// The model with `id`: the stored value while it is fresh, otherwise loaded (sharing a load in flight).
    ///
    /// - Throws: ``EndpointError``, as ``EndpointClient/response(for:using:)`` does.
    public func loadModel(withID id: Model.ID) async throws(EndpointError) -> Model {
        let key = key(id)
        if let fresh = store.freshValue(for: key) { return fresh }
        return try await load(id, key: key, revalidate: false)
    }

    /// The models with `ids`, in the same order (repeats included), each as ``loadModel(withID:)`` gets it: fresh
    /// ones with no request, the rest loaded at once (with a batch endpoint, in one request per
    /// ``ModelBatch/maximumSize`` IDs, whatever its window).
    ///
    /// - Throws: The first failure in the order of `ids`; ``loadModelResults(withIDs:)`` keeps the models that
    ///   loaded beside the errors of those that did not.
    public func loadModels(withIDs ids: [Model.ID]) async throws(EndpointError) -> [Model] {
        var models: [Model] = []
        models.reserveCapacity(ids.count)
        for result in await loadModelResults(withIDs: ids) { models.append(try result.get()) }
        return models
    }

    /// One result per ID of `ids`, in the same order: each model that loaded, and each failed ID's own error
    /// (``EndpointError/Kind/modelNotFound`` names the ID and the request), as ``loadModels(withIDs:)`` loads them.
    ///
    ///     let results = await loader.loadModelResults(withIDs: [1, 2, 3])
    ///     let loaded = results.compactMap { try? $0.get() }
    public func loadModelResults(withIDs ids: [Model.ID]) async -> [Result<Model, EndpointError>] {
        // In the caller's order, each once: a dictionary's order changes from process to process.
        var seen: Set<LoadKey<Model.ID>> = []
        var loaded: [LoadKey<Model.ID>: Result<Model, EndpointError>] = [:]
        var missing: [(key: LoadKey<Model.ID>, id: Model.ID)] = []
        for id in ids {
            let key = key(id)
            guard seen.insert(key).inserted else { continue }
            if let fresh = store.freshValue(for: key) {
                loaded[key] = .success(fresh)
            } else {
                missing.append((key, id))
            }
        }
        if let batcher, missing.count > 1 {
            loaded.merge(await loadTogether(missing, through: batcher)) { first, _ in first }
        } else {
            loaded.merge(await loadApart(missing)) { first, _ in first }
        }
        return ids.map { id in
            loaded[key(id)] ?? .failure(EndpointError(.modelNotFound, "no model was loaded for ID \(id)"))
        }
    }

    /// Loads each of `missing` on its own, at once, sharing loads in flight.
    private func loadApart(_ missing: [(key: LoadKey<Model.ID>, id: Model.ID)]) async
        -> [LoadKey<Model.ID>: Result<Model, EndpointError>]
    {
        await withTaskGroup(of: (LoadKey<Model.ID>, Result<Model, EndpointError>).self) { group in
            for (key, id) in missing {
                group.addTask {
                    do throws(EndpointError) {
                        return (key, .success(try await loadModel(withID: id)))
                    } catch {
                        return (key, .failure(error))
                    }
                }
            }
            var results: [LoadKey<Model.ID>: Result<Model, EndpointError>] = [:]
            for await (key, result) in group { results[key] = result }
            return results
        }
    }

    /// Loads all of `missing` in one batch (queued at once, so that the window cannot split them); one a write
    /// or an invalidation overtook loads again on its own.
    private func loadTogether(
        _ missing: [(key: LoadKey<Model.ID>, id: Model.ID)],
        through batcher: ModelBatcher<Model>
    ) async -> [LoadKey<Model.ID>: Result<Model, EndpointError>] {
        let starts = missing.map { store.beginLoad($0.key, id: $0.id) }
        let results = await batcher.load(missing.map(\.id), revalidate: starts.contains { $0.isInvalidated })
        var loaded: [LoadKey<Model.ID>: Result<Model, EndpointError>] = [:]
        var overtaken: [(key: LoadKey<Model.ID>, id: Model.ID)] = []
        for (index, (key, id)) in missing.enumerated() {
            let result = results[index].map { (model: $0, unchanged: false) }
            switch store.finishLoad(key, id: id, startedUnder: starts[index], result: result) {
            case .value(let model): loaded[key] = .success(model)
            case .failed(let error): loaded[key] = .failure(error)
            case .superseded: overtaken.append((key, id))
            }
        }
        loaded.merge(await loadApart(overtaken)) { first, _ in first }
        return loaded
    }

    /// A live view of the model with `id`: its value now (if there is one), then every new value, until the loop
    /// stops. Starting it loads the model unless a fresh value is stored. See ``ModelPublisher``.
    ///
    /// This was a one-shot publisher before 0.5; ``loadModel(withID:)`` is the one-shot read.
    public func publisher(forID id: Model.ID) -> ModelPublisher<Model> {
        ModelPublisher(subscribe: subscription(for: id))
    }

    /// Every state of the model with `id` (value, loading, error), now and as it changes, until the loop stops.
    public func states(forID id: Model.ID) -> ModelStates<Model> {
        ModelStates(subscribe: subscription(for: id))
    }

    private func subscription(for id: Model.ID) -> @Sendable () -> ModelSubscription<Model> {
        { [self] in
            let key = key(id)
            let subscription = ModelSubscription(store: store, key: key, id: id, background: background)
            if store.freshValue(for: key) == nil { loadInBackground(id, key: key, revalidate: false) }
            return subscription
        }
    }

    // MARK: Loading

    private func load(_ id: Model.ID, key: LoadKey<Model.ID>, revalidate: Bool) async throws(EndpointError) -> Model {
        try await Self.load(id, key: key, revalidate: revalidate, fetch: source.fetch, store: store, inFlight: inFlight)
    }

    /// The load, apart from the loader: a background task runs it without keeping the loader (and the owner that
    /// cancels it) alive.
    private static func load(
        _ id: Model.ID,
        key: LoadKey<Model.ID>,
        revalidate: Bool,
        fetch: @escaping ModelSource<Model>.Fetch,
        store: ModelStore<Model>,
        inFlight: SharedLoads<LoadKey<Model.ID>, Model>
    ) async throws(EndpointError) -> Model {
        try await inFlight.value(for: key) { () async throws(EndpointError) -> Model in
            // A load that finished between the caller's look and this one made the value fresh.
            if !revalidate, let fresh = store.freshValue(for: key) { return fresh }
            // A load a write overtook is sent again (a few times at most), so that callers get a value read after
            // the last write.
            var attempt = 0
            var revalidate = revalidate
            while true {
                attempt += 1
                let start = store.beginLoad(key, id: id)
                let result: Result<(model: Model, unchanged: Bool), EndpointError>
                do throws(EndpointError) {
                    // An ordinary GET through the HTTP cache: a response the server still declares fresh costs no
                    // request, and a stale one goes out conditional. Only an invalidation goes past the cache.
                    result = .success(try await fetch(id, revalidate || start.isInvalidated))
                } catch {
                    result = .failure(error)
                }
                switch store.finishLoad(key, id: id, startedUnder: start, isLastTry: attempt == 4, result: result) {
                case .value(let model):
                    return model
                case .superseded(let invalidated) where attempt < 4:
                    if invalidated { revalidate = true }
                    continue
                case .superseded:
                    // Writes keep overtaking it: the newest write stands.
                    if let current = store.value(for: key) { return current }
                    throw EndpointError(.cancelled, "writes to model \(id) kept overtaking its load")
                case .failed(let error):
                    throw error
                }
            }
        }
    }

    /// A refetch past the HTTP cache, in the loader's background, that keeps neither the loader nor its store alive:
    /// what an outbox runs when a write's outcome is unknown.
    var detachedRefetch: @Sendable (Model.ID, LoadKey<Model.ID>) -> Void {
        let (fetch, inFlight, owner) = (source.fetch, inFlight, TaskOwner.Reference(background))
        return { [weak store] id, key in
            guard let store else { return }
            owner.owner?.run {
                _ = try? await Self.load(id, key: key, revalidate: true, fetch: fetch, store: store, inFlight: inFlight)
            }
        }
    }

    func loadInBackground(_ id: Model.ID, key: LoadKey<Model.ID>, revalidate: Bool) {
        let (fetch, store, inFlight, backgroundLoads) = (source.fetch, store, inFlight, backgroundLoads)
        if !revalidate {
            guard backgroundLoads.withLock({ $0.insert(key).inserted }) else { return }
        }
        background.run {
            defer { if !revalidate { _ = backgroundLoads.withLock { $0.remove(key) } } }
            // A load that finished since this one was asked for made the value fresh: nothing to do.
            if !revalidate, store.freshValue(for: key) != nil { return }
            _ = try? await Self.load(
                id,
                key: key,
                revalidate: revalidate,
                fetch: fetch,
                store: store,
                inFlight: inFlight
            )
        }
    }
}
