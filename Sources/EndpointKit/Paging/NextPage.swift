import Foundation

/// How to get from one page to the next: a rule, as a value, that ``EndpointClient/pages(for:using:next:)``
/// follows.
///
///     client.pages(for: .issues(in: repo), using: token, next: .link)                         // Link: rel="next"
///     client.pages(for: .feed, next: .cursor(parameter: "after") { $0.nextCursor })           // a cursor in the body
///     client.pages(for: .items, next: .pageNumber { $0.value.isEmpty })                      // until an empty page
///     client.pages(for: .items, next: NextPage { page, endpoint in page.value.isEmpty ? nil : endpoint })
///
/// A rule returns the endpoint of the next page, or `nil` at the end.
public struct NextPage<Kind: EndpointKind, Value>: Sendable {
    let rule: @Sendable (Response<Value>, Endpoint<Kind, Value>) throws -> Endpoint<Kind, Value>?

    /// A rule of your own: from a page and the endpoint that fetched it to the next page's endpoint, or `nil` at
    /// the end. An error it throws ends the pages with it, wrapped in ``EndpointError`` that names the page's URL,
    /// after the page it was given.
    public init(
        _ rule:
            @escaping @Sendable (_ page: Response<Value>, _ endpoint: Endpoint<Kind, Value>) throws -> Endpoint<
                Kind, Value
            >?
    ) {
        self.rule = rule
    }

    /// The target of the `Link` header's `rel="next"` link (RFC 8288: several links in a field and several
    /// fields, quoted or bare parameters, `rel` with several types), resolved against the URL that answered; the
    /// end when there is none. A link whose `anchor` names another resource is not this page's next, and a target
    /// that is not a URL ends the pages with ``EndpointError/Kind/decodingFailed``, naming it.
    ///
    /// The next endpoint is this one sent to that URL (its query is the link's, not the first page's). A URL at
    /// another origin than the client's environment is sent without credentials, as a redirect there would be.
    public static var link: NextPage {
        NextPage { page, endpoint in
            guard let target = try LinkHeader.target(of: "next", in: page.headers, relativeTo: page.url) else {
                return nil
            }
            var next = endpoint
            next.url = target
            next.queryItems = []
            return next
        }
    }

    /// The cursor `cursor` reads from a page's value, sent as the query item `parameter`; the end when it is
    /// `nil` or empty.
    ///
    ///     let next: NextPage<EndpointKinds.Public, Feed> = .cursor(parameter: "after") { feed in feed.nextCursor }
    public static func cursor(parameter: String, from cursor: @escaping @Sendable (Value) -> String?) -> NextPage {
        NextPage { page, endpoint in
            guard let value = cursor(page.value), !value.isEmpty else { return nil }
            return endpoint.settingQueryItem(parameter, to: value)
        }
    }

    /// Page numbers in the query item `parameter`, from `first` (the first page's own number when it names one),
    /// up by one per page until `isLastPage` says a page is the last.
    public static func pageNumber(
        parameter: String = "page",
        first: Int = 1,
        isLastPage: @escaping @Sendable (Response<Value>) -> Bool
    ) -> NextPage {
        NextPage { page, endpoint in
            guard !isLastPage(page) else { return nil }
            let current = endpoint.queryItems.last { $0.name == parameter }?.value.flatMap { Int($0) } ?? first
            return endpoint.settingQueryItem(parameter, to: String(current + 1))
        }
    }

    /// Offsets in the query item `parameter`, from 0 (or the first page's own), up by `count` of each page's
    /// value until a page counts 0.
    public static func offset(parameter: String = "offset", count: @escaping @Sendable (Value) -> Int) -> NextPage {
        NextPage { page, endpoint in
            let size = count(page.value)
            guard size > 0 else { return nil }
            let current = endpoint.queryItems.last { $0.name == parameter }?.value.flatMap { Int($0) } ?? 0
            return endpoint.settingQueryItem(parameter, to: String(current + size))
        }
    }
}

extension Endpoint {
    /// This endpoint with the query item `name` set to `value`, replacing any of that name.
    func settingQueryItem(_ name: String, to value: String) -> Self {
        var endpoint = self
        if let index = endpoint.queryItems.firstIndex(where: { $0.name == name }) {
            endpoint.queryItems.removeAll { $0.name == name }
            endpoint.queryItems.insert(URLQueryItem(name: name, value: value), at: index)
        } else {
            endpoint.queryItems.append(URLQueryItem(name: name, value: value))
        }
        return endpoint
    }
}
