import Foundation

/// The pages of a paged list, fetched one at a time as they are asked for: what
/// ``EndpointClient/pages(for:using:next:)`` returns.
///
///     for try await page in client.pages(for: .issues(in: repo), using: token, next: .link) {
///         print(page.value.count, page.source)      // each a Response: value, headers, where it came from
///     }
///     for try await issue in client.pages(for: .issues(in: repo), using: token, next: .link).elements {
///         print(issue.title)
///     }
///
/// Nothing is sent until iteration starts, a page is fetched only when the loop asks for it, and only the page
/// being handed over is held. Each page goes through the client's whole pipeline (middleware, retries, the
/// cache: a second walk of unchanged pages is a run of 304s). Iteration ends after the page whose rule finds no
/// next one, and fails with ``EndpointError/Kind/paginationLoop`` when the next page is one already fetched.
/// Cancelling the task stops the page in flight.
public struct Pages<Kind: EndpointKind, Value: Decodable>: AsyncSequence, Sendable {
    /// Pages fail with ``EndpointError`` only.
    public typealias Failure = EndpointError
    /// Each page with its response.
    public typealias Element = Response<Value>

    let client: EndpointClient
    let first: Endpoint<Kind, Value>
    let requestData: Kind.RequestData
    let next: NextPage<Kind, Value>

    /// Starts at the first page.
    public func makeAsyncIterator() -> Iterator {
        let route =
            first.url == nil ? PreparedCall.Route(basePrefix: client.environment.base.prefix, path: first.path) : nil
        let walk = PageWalk.Shared(template: route?.template)
        return Iterator(client: client, upcoming: first, requestData: requestData, next: next, walk: walk)
    }

    /// Fetches pages as they are asked for.
    public struct Iterator: AsyncIteratorProtocol {
        let client: EndpointClient
        var upcoming: Endpoint<Kind, Value>?
        let requestData: Kind.RequestData
        let next: NextPage<Kind, Value>
        /// What the pages of this walk share, for instruments.
        let walk: PageWalk.Shared
        /// Every URL fetched so far.
        var seen: Set<String> = []
        /// The next-page rule's failure, thrown after the page it was given.
        var failure: EndpointError?

        /// The next page, or `nil` after the last.
        public mutating func next() async throws(EndpointError) -> Response<Value>? {
            if let failure {
                self.failure = nil
                throw failure
            }
            guard let endpoint = upcoming else { return nil }
            // Whatever happens, a page is asked for once: after an error the sequence is over.
            upcoming = nil
            let url = try endpoint.makeURL(in: client.environment)
            guard seen.insert(url.absoluteString).inserted else {
                throw EndpointError(
                    .paginationLoop,
                    "the next page is one already fetched; the server's pages go round in a loop",
                    request: RequestSummary(
                        method: endpoint.method,
                        redactedURL: client.redactor(for: Kind.self).redactedString(for: url)
                    )
                )
            }
            var sent = endpoint
            sent.options.pageWalk = PageWalk(page: seen.count, shared: walk)
            let page = try await client.exchange(for: sent, using: requestData)
            do {
                upcoming = try self.next.rule(page, endpoint)
            } catch {
                // The page was answered: it is returned, and the error comes on the next call, naming the page.
                var wrapped = EndpointError.wrapping(error)
                wrapped.request = RequestSummary(
                    method: endpoint.method,
                    redactedURL: client.redactor(for: Kind.self).redactedString(for: page.url ?? url)
                )
                failure = wrapped
            }
            return page
        }
    }
}

extension Pages where Value: Sequence {
    /// The elements of every page, in order, fetched a page at a time as the loop reaches them.
    public var elements: PageElements<Kind, Value> { PageElements(pages: self) }
}

/// The elements of a paged list, page after page: ``Pages/elements``.
public struct PageElements<Kind: EndpointKind, Value: Decodable & Sequence>: AsyncSequence, Sendable {
    /// Elements fail with ``EndpointError`` only.
    public typealias Failure = EndpointError
    /// One element of a page.
    public typealias Element = Value.Element

    let pages: Pages<Kind, Value>

    /// Starts at the first page.
    public func makeAsyncIterator() -> Iterator { Iterator(pages: pages.makeAsyncIterator()) }

    /// Walks the elements of one page, then fetches the next.
    public struct Iterator: AsyncIteratorProtocol {
        var pages: Pages<Kind, Value>.Iterator
        var current: Value.Iterator?

        /// The next element, or `nil` after the last page's last.
        public mutating func next() async throws(EndpointError) -> Value.Element? {
            while true {
                if let element = current?.next() { return element }
                guard let page = try await pages.next() else { return nil }
                current = page.value.makeIterator()
            }
        }
    }
}
