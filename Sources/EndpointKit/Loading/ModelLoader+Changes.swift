/// What changes a loader's values besides loading: invalidation, puts and optimistic updates.
extension ModelLoader {
    // MARK: Invalidating

    /// Marks the model with `id` stale; if anyone observes it, it is fetched again now (asking the server past
    /// any fresh HTTP cache entry), otherwise when next asked for.
    public func invalidate(id: Model.ID) {
        refetch(store.invalidate(key(id)))
    }

    /// Marks the models whose IDs `matches` selects stale, and fetches again those someone observes.
    public func invalidate(where matches: (Model.ID) -> Bool) {
        refetch(store.invalidate(where: matches))
    }

    /// Marks every model stale, and fetches again those someone observes.
    public func invalidateAll() {
        refetch(store.invalidateAll())
    }

    private func refetch(_ observed: [(key: LoadKey<Model.ID>, id: Model.ID)]) {
        for (key, id) in observed { loadInBackground(id, key: key, revalidate: true) }
    }

    // MARK: Writing

    /// Stores `model` as the newest value for its ID, e.g. a `PATCH`'s answer or an item from a list endpoint;
    /// every observer of that ID gets it.
    public func put(_ model: Model) {
        store.write(model, for: key(model.id), id: model.id, confirmed: true)
    }

    /// Stores every model of `models`, e.g. the items of a page.
    public func put(contentsOf models: some Sequence<Model>) {
        for model in models { put(model) }
    }

    /// Shows `model` to every observer at once, then runs `request` (the write to the server): its answer, when
    /// it returns one, replaces `model`; if it fails, the latest value the server confirmed is put back (unless a
    /// newer write came since) and the error is thrown. Loads that finish meanwhile renew what the server
    /// confirmed without replacing the value on show.
    ///
    ///     try await loader.update(renamed) { try await client.response(for: .rename(renamed), using: token) }
    ///
    /// - Returns: The value that stands: the server's answer, or `model`.
    /// - Throws: What `request` threw, as an ``EndpointError`` (an error of another type is wrapped, and kept as
    ///   its ``EndpointError/underlyingError``).
    @discardableResult
    public func update(
        _ model: Model,
        sending request: @Sendable () async throws -> Model?
    ) async throws(EndpointError) -> Model {
        let key = key(model.id)
        let previous = store.value(for: key)
        let write = store.write(model, for: key, id: model.id, confirmed: false)
        do {
            guard let answer = try await request() else {
                store.settle(key, write: write, outcome: .accepted, previous: previous)
                return model
            }
            store.settle(key, write: write, outcome: .answered(answer), previous: previous)
            return answer
        } catch {
            store.settle(key, write: write, outcome: .failed, previous: previous)
            throw EndpointError.wrapping(error)
        }
    }
}
