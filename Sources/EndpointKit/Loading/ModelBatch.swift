/// A batch endpoint for a ``ModelLoader``: IDs asked for within one short window (and neither fresh nor already
/// in flight) go out together, `GET /items?ids=1,2,3`, up to a maximum per request.
///
///     let loader = ModelLoader<Item>(client: client, batch: ModelBatch(maximumSize: 50) { ids in
///         let list = ids.map(String.init).joined(separator: ",")
///         return Endpoint<EndpointKinds.Public, [Item]>(path: "items", query: ["ids": list])
///     })
///
/// The closure names the endpoint's type: Swift cannot infer its kind from `Endpoint(path:)` alone.
///
/// The endpoint returns the models it found, in any order; an ID it leaves out fails its own callers only, with
/// ``EndpointError/Kind/modelNotFound``. The latency a batch adds is at most its window.
public struct ModelBatch<Kind: EndpointKind, Model: Identifiable & Decodable & Sendable>: Sendable
where Model.ID: Sendable {
    /// The endpoint that returns the models with the given IDs.
    let endpoint: @Sendable ([Model.ID]) -> Endpoint<Kind, [Model]>
    /// The most IDs in one request: 100 unless set.
    public var maximumSize: Int
    /// How long the first ID of a batch waits for others, on the client's clock; `nil` (the default) for one
    /// turn of the scheduler, which gathers IDs asked for at the same moment.
    public var window: Duration?

    /// Creates a batch.
    public init(
        maximumSize: Int = 100,
        window: Duration? = nil,
        endpoint: @escaping @Sendable ([Model.ID]) -> Endpoint<Kind, [Model]>
    ) {
        self.maximumSize = max(1, maximumSize)
        self.window = window
        self.endpoint = endpoint
    }
}
