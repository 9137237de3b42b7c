import Foundation

/// Where a ``ModelLoader`` gets its models, in one shape for its three kinds (an endpoint per ID, a batch endpoint,
/// a function of your own): how to load an ID (past the HTTP cache when asked), what makes two loads the same,
/// and the clock. The store, persistence and revalidation work the same whatever the source.
struct ModelSource<Model: Identifiable & Sendable>: Sendable where Model.ID: Sendable {
    /// Loads an ID; with `revalidate`, past a fresh HTTP cache entry. `unchanged` marks a 304 or a stored response.
    typealias Fetch =
        @Sendable (Model.ID, _ revalidate: Bool) async throws(EndpointError) -> (
            model: Model, unchanged: Bool
        )

    var fetch: Fetch
    /// What makes two loads the same.
    var key: @Sendable (Model.ID) -> LoadKey<Model.ID>
    /// The batch endpoint's gatherer, for a batch source.
    var batcher: ModelBatcher<Model>?
    /// The clock freshness and retention are measured on.
    var clock: any Clock<Duration>

    /// Loads through a function of your own, keyed by the ID exactly (scalar for scalar).
    static func function(
        clock: any Clock<Duration>,
        load: @escaping @Sendable (Model.ID) async throws(EndpointError) -> Model
    )
        -> Self
    {
        Self(
            fetch: { id, _ async throws(EndpointError) in (try await load(id), false) },
            key: { LoadKey(exactly: $0) },
            clock: clock
        )
    }
}

extension ModelSource where Model: Decodable {
    /// Loads each ID through its own endpoint, keyed by the request it sends (canonically equivalent string IDs
    /// are equal, yet percent-encode to different URLs).
    static func endpoint<Kind: EndpointKind>(
        client: EndpointClient,
        using requestData: Kind.RequestData,
        endpoint: @escaping @Sendable (Model.ID) -> Endpoint<Kind, Model>
    ) -> Self {
        let environment = client.environment
        return Self(
            fetch: { id, revalidate async throws(EndpointError) in
                var request = endpoint(id)
                if revalidate { request.options.cacheDirectives.noCache = true }
                let response = try await client.exchange(for: request, using: requestData)
                // A 304 or a stored response: the same representation the store may already have.
                return (response.value, response.source != .network)
            },
            key: { id in
                let request = endpoint(id)
                guard let url = try? request.makeURL(in: environment) else { return LoadKey(exactly: id) }
                return .request(method: request.method.rawValue, url: url.absoluteString)
            },
            clock: client.clock
        )
    }

    /// Loads IDs together through a batch endpoint, keyed by the ID exactly.
    static func batch<Kind: EndpointKind>(
        client: EndpointClient,
        using requestData: Kind.RequestData,
        batch: ModelBatch<Kind, Model>
    ) -> Self {
        let redactor = client.redactor(for: Kind.self)
        let batcher = ModelBatcher<Model>(maximumSize: batch.maximumSize, window: batch.window, clock: client.clock) {
            ids,
            revalidate async throws(EndpointError) in
            var request = batch.endpoint(ids)
            if revalidate { request.options.cacheDirectives.noCache = true }
            let response = try await client.exchange(for: request, using: requestData)
            let summary = response.url.map {
                RequestSummary(method: request.method, redactedURL: redactor.redactedString(for: $0))
            }
            return (response.value, summary)
        }
        return Self(
            fetch: { id, revalidate async throws(EndpointError) in
                (try await batcher.load(id, revalidate: revalidate), false)
            },
            key: { LoadKey(exactly: $0) },
            batcher: batcher,
            clock: client.clock
        )
    }
}
