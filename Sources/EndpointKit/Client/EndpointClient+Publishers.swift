extension EndpointClient {
    /// A cold, re-iterable publisher that sends `endpoint` once per iteration and emits its response.
    ///
    ///     for try await results in client.publisher(for: .search(for: "tea"), using: token) {
    ///         print(results.items.count)
    ///     }
    ///
    /// See ``EndpointPublisher`` for the contract: each loop sends its own request, and cancelling the
    /// consuming task cancels the transfer. Any other verb becomes a publisher the same way, e.g. the value with
    /// its headers: `EndpointPublisher { try await client.exchange(for: .repositories, using: token) }`.
    public func publisher<Kind: EndpointKind, Response: Decodable & Sendable>(
        for endpoint: Endpoint<Kind, Response>,
        using requestData: Kind.RequestData
    ) -> EndpointPublisher<Response> {
        EndpointPublisher { () async throws(EndpointError) -> Response in
            try await response(for: endpoint, using: requestData)
        }
    }

    /// A cold, re-iterable publisher for an endpoint whose kind needs no request data.
    ///
    ///     for try await items in client.publisher(for: .featuredItems) { show(items) }
    public func publisher<Kind: EndpointKind, Response: Decodable & Sendable>(
        for endpoint: Endpoint<Kind, Response>
    ) -> EndpointPublisher<Response> where Kind.RequestData == Void {
        publisher(for: endpoint, using: ())
    }
}
