import Foundation

extension EndpointClient {
    /// The pages of a paged list, from `endpoint` (the first page) on, each next page found by `next`.
    ///
    ///     for try await page in client.pages(for: .issues(in: repo), using: token, next: .link) { print(page.value) }
    ///     let all = try await client.pages(for: .feed, next: .cursor(parameter: "after") { $0.nextCursor })
    ///         .reduce(into: [Item]()) { $0 += $1.value.items }
    ///
    /// Lazy: nothing is sent until iteration starts, and each page is fetched when the loop asks for it. Every
    /// page is an ``exchange(for:using:)``: validated, decoded, retried, cached and observed like any call, with
    /// `requestData` for each. See ``Pages`` and ``NextPage``.
    public func pages<Kind: EndpointKind, Value: Decodable>(
        for endpoint: Endpoint<Kind, Value>,
        using requestData: Kind.RequestData,
        next: NextPage<Kind, Value>
    ) -> Pages<Kind, Value> {
        Pages(client: self, first: endpoint, requestData: requestData, next: next)
    }

    /// The pages of a paged list whose kind needs no request data; see ``pages(for:using:next:)``.
    public func pages<Kind: EndpointKind, Value: Decodable>(
        for endpoint: Endpoint<Kind, Value>,
        next: NextPage<Kind, Value>
    ) -> Pages<Kind, Value> where Kind.RequestData == Void {
        Pages(client: self, first: endpoint, requestData: (), next: next)
    }
}
