import Foundation

extension ModelLoader where Model: Encodable {
    /// Creates a loader that keeps the values the server confirmed in `persistence`, and starts with those it
    /// kept (shown at once, stale until revalidated).
    ///
    /// - Parameters:
    ///   - client: The client that sends the requests.
    ///   - requestData: What the endpoints' kind needs.
    ///   - policy: Freshness, retention and the count bound.
    ///   - persistence: Where values are kept, e.g. ``DiskModelPersistence``.
    ///   - endpoint: The endpoint that returns the model with a given ID.
    public init<Kind: EndpointKind>(
        client: EndpointClient,
        using requestData: Kind.RequestData,
        policy: ModelStorePolicy = ModelStorePolicy(),
        persistence: any ModelPersistence,
        endpoint: @escaping @Sendable (Model.ID) -> Endpoint<Kind, Model>
    ) {
        // One coder pair for both ways, whatever the client's decoder expects from the server: a model written with
        // one coder and read with another (`.iso8601` dates, snake_case keys) would not read back.
        let decoder = JSONDecoder()
        let kept = persistence.storedModels().compactMap { try? decoder.decode(Model.self, from: $0) }
        let encoder = JSONEncoder()
        let keeping = Keeping(
            save: { key, model in
                guard let data = try? encoder.encode(model) else { return }
                persistence.save(data, forKey: key.persistenceName)
            },
            kept: kept
        )
        self.init(client: client, using: requestData, policy: policy, keeping: keeping, endpoint: endpoint)
    }

    /// Creates a persisted loader for endpoints whose kind needs no request data; see
    /// ``init(client:using:policy:persistence:endpoint:)``.
    public init<Kind: EndpointKind>(
        client: EndpointClient,
        policy: ModelStorePolicy = ModelStorePolicy(),
        persistence: any ModelPersistence,
        endpoint: @escaping @Sendable (Model.ID) -> Endpoint<Kind, Model>
    ) where Kind.RequestData == Void {
        self.init(client: client, using: (), policy: policy, persistence: persistence, endpoint: endpoint)
    }
}
