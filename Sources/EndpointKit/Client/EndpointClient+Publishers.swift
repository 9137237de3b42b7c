extension EndpointClient {
    /// A cold, re-iterable publisher that sends `endpoint` once per iteration and emits its response.
    ///
    ///     for try await results in client.publisher(for: .search(for: "tea"), using: token) {
    ///         print(results.items.count)
    ///     }
    ///
    /// See ``EndpointPublisher`` for the contract: each loop sends its own request, and cancelling the
    /// consuming task cancels the transfer.
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

    /// A cold, re-iterable publisher that sends `endpoint` once per iteration and emits its value with the
    /// response head: ``send(_:using:)`` as a publisher.
    ///
    ///     for try await page in client.sendPublisher(for: .repositories, using: token) {
    ///         show(page.value, next: page.headers["Link"])
    ///     }
    public func sendPublisher<Kind: EndpointKind, Value: Decodable & Sendable>(
        for endpoint: Endpoint<Kind, Value>,
        using requestData: Kind.RequestData
    ) -> EndpointPublisher<EndpointKit.Response<Value>> {
        EndpointPublisher { () async throws(EndpointError) -> EndpointKit.Response<Value> in
            try await send(endpoint, using: requestData)
        }
    }

    /// ``sendPublisher(for:using:)`` for an endpoint whose kind needs no request data.
    public func sendPublisher<Kind: EndpointKind, Value: Decodable & Sendable>(
        for endpoint: Endpoint<Kind, Value>
    ) -> EndpointPublisher<EndpointKit.Response<Value>> where Kind.RequestData == Void {
        sendPublisher(for: endpoint, using: ())
    }
}
