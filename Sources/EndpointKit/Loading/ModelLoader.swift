import Foundation

/// Loads any `Identifiable & Decodable` model by its ID, through an endpoint you name once.
///
///     let loader = ModelLoader<Item>(client: client) { id in .item(id) }
///     let item = try await loader.loadModel(withID: 42)
///     for try await item in loader.publisher(forID: 42) { print(item.name) }
///
/// For models behind a kind that needs request data, pass it once with ``init(client:using:endpoint:)``.
///
/// Concurrent calls for the same request share it: ten views asking for item 42 at once cause one `GET`. Calls
/// are shared by the method and URL they send, so two IDs that Swift finds equal but that reach different URLs
/// (canonically equivalent strings such as "é" and "e\u{301}") are loaded apart.
/// A caller whose task is cancelled stops waiting at once; the request itself is cancelled only when no
/// caller waits for it any more. Nothing is cached: a call after the request finished sends a new one.
public struct ModelLoader<Model: Identifiable & Decodable & Sendable>: Sendable where Model.ID: Sendable {
    private let load: @Sendable (Model.ID) async throws(EndpointError) -> Model
    /// What makes two loads the same: the request they send, not `Model.ID`'s `==` (canonically equivalent
    /// string IDs are equal, yet percent-encode to different URLs).
    private let key: @Sendable (Model.ID) -> LoadKey<Model.ID>
    private let inFlight = SharedLoads<LoadKey<Model.ID>, Model>()

    /// How many callers wait for the load of `id` now.
    func waiterCount(for id: Model.ID) -> Int { inFlight.waiterCount(for: key(id)) }

    /// Creates a loader for endpoints whose kind needs no request data.
    ///
    /// - Parameters:
    ///   - client: The client that sends the requests.
    ///   - endpoint: The endpoint that returns the model with a given ID.
    public init<Kind: EndpointKind>(
        client: EndpointClient,
        endpoint: @escaping @Sendable (Model.ID) -> Endpoint<Kind, Model>
    ) where Kind.RequestData == Void {
        self.init(client: client, using: (), endpoint: endpoint)
    }

    /// Creates a loader that sends every request with `requestData`, e.g. an ``AccessToken``.
    ///
    /// - Parameters:
    ///   - client: The client that sends the requests.
    ///   - requestData: What the endpoints' kind needs.
    ///   - endpoint: The endpoint that returns the model with a given ID.
    public init<Kind: EndpointKind>(
        client: EndpointClient,
        using requestData: Kind.RequestData,
        endpoint: @escaping @Sendable (Model.ID) -> Endpoint<Kind, Model>
    ) {
        load = { id async throws(EndpointError) -> Model in
            try await client.response(for: endpoint(id), using: requestData)
        }
        let environment = client.environment
        key = { id in
            let request = endpoint(id)
            guard let url = try? request.makeURL(in: environment) else { return LoadKey(exactly: id) }
            return .request(method: request.method.rawValue, url: url.absoluteString)
        }
    }

    /// Creates a loader from any loading function, e.g. one that reads a cache first.
    ///
    /// Concurrent calls share a load when their IDs are equal and also print the same, Unicode scalar for
    /// scalar: string IDs that are only canonically equivalent load apart.
    public init(load: @escaping @Sendable (Model.ID) async throws(EndpointError) -> Model) {
        self.load = load
        key = { LoadKey(exactly: $0) }
    }

    /// Loads the model with `id`.
    ///
    /// - Throws: ``EndpointError``, as ``EndpointClient/response(for:using:)`` does.
    public func loadModel(withID id: Model.ID) async throws(EndpointError) -> Model {
        let load = self.load
        return try await inFlight.value(for: key(id)) { () async throws(EndpointError) -> Model in try await load(id) }
    }

    /// A cold, re-iterable publisher that loads the model with `id` once per iteration.
    ///
    /// See ``EndpointPublisher`` for the contract.
    public func publisher(forID id: Model.ID) -> EndpointPublisher<Model> {
        EndpointPublisher { () async throws(EndpointError) -> Model in try await loadModel(withID: id) }
    }
}
