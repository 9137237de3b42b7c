import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A typed description of one API call: what to send, what `Kind` of access it needs, and what `Response`
/// it returns.
///
/// `Kind` and `Response` are phantom types: an endpoint stores neither, they let the compiler check each
/// call. Declare endpoints as static factories in constrained extensions, and the compiler infers both at
/// the call site:
///
///     extension Endpoint where Kind == EndpointKinds.Public, Response == [Item] {
///         static var featuredItems: Self { Endpoint(path: "featured") }
///     }
///     extension Endpoint where Kind == EndpointKinds.Private, Response == SearchResults {
///         static func search(for query: String) -> Self {
///             Endpoint(path: "search", queryItems: [URLQueryItem(name: "q", value: query)])
///         }
///     }
///
///     let featured = try await client.response(for: .featuredItems)
///     let results = try await client.response(for: .search(for: "tea"), using: token)
public struct Endpoint<Kind: EndpointKind, Response>: Sendable, CustomReflectable {
    /// The request method; `GET` unless set.
    public var method: HTTPMethod
    /// The path below the environment's base URL; interpolated values are each one segment.
    public var path: EndpointPath
    /// An absolute `http` or `https` URL to send to instead of the environment's base URL and ``path``, e.g. the
    /// next page from a `Link` header or a `Location` a server returned; `nil` for most endpoints.
    ///
    /// Its query is kept as the server wrote it, and ``queryItems`` are added after it. When it is not at the
    /// environment's origin (scheme, host and port), it is sent as a redirect there would be: without the
    /// environment's headers and query items, and without credentials (`Authorization`, cookies, API keys,
    /// ``RequestDefaults/sensitiveHeaders``), whatever the kind or a middleware added.
    public var url: URL?
    /// Query items, sent in order after the environment's. Names and values are percent-encoded so that
    /// every character, `+`, `&`, `=` and `#` included, reaches the server as written. An item whose value
    /// is `nil` is sent as its bare name.
    public var queryItems: [URLQueryItem]
    /// Headers for this endpoint; they win over the environment's and the client's.
    public var headers: HTTPHeaders
    /// The body, or `nil` for none. `GET` and `HEAD` endpoints cannot have one.
    public var body: (any RequestBody)?
    /// How to unwrap the response body, or `nil` to use the client's setting.
    public var envelope: ResponseEnvelope?
    /// How long one attempt may take in all, or `nil` for the client's ``RequestDefaults/timeout``; 10⁹ seconds
    /// or more for no deadline.
    public var timeout: Duration?
    /// How long the transfer may go without a byte before it fails, or `nil` for the client's
    /// ``RequestDefaults/idleTimeout``.
    public var idleTimeout: Duration?
    /// The largest body this endpoint's response may have in bytes, or `nil` for the client's
    /// ``RequestDefaults/maximumResponseSize``.
    public var maximumResponseSize: Int?
    /// The decoder for this endpoint's response, or `nil` for the client's.
    public var decoder: JSONDecoder?
    /// Settings middleware reads for this endpoint, e.g. `options.retryPolicy = .never`.
    public var options = RequestOptions()

    /// The method, path, query (secret values redacted), headers (redacted) and body type, so that `dump` never
    /// shows a credential.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "method": method, "path": path.percentEncoded,
                "url": url.map { Redaction.redactedString(for: $0) } as Any,
                "queryItems": Redaction.redacted(queryItems),
                "headers": headers, "body": body.map { "\(type(of: $0))" } as Any, "timeout": timeout as Any,
            ],
            displayStyle: .struct
        )
    }

    /// Creates an endpoint.
    ///
    /// - Parameters:
    ///   - method: The request method.
    ///   - path: The path below the environment's base URL, e.g. `"items/\(id)"`.
    ///   - queryItems: Query items in order.
    ///   - headers: Headers for this endpoint.
    ///   - body: The request body, e.g. `JSONBody(newItem)`.
    ///   - envelope: How to unwrap the response, or `nil` for the client's setting.
    public init(
        method: HTTPMethod = .get,
        path: EndpointPath,
        queryItems: [URLQueryItem] = [],
        headers: HTTPHeaders = HTTPHeaders(),
        body: (any RequestBody)? = nil,
        envelope: ResponseEnvelope? = nil
    ) {
        self.method = method
        self.path = path
        self.queryItems = queryItems
        self.headers = headers
        self.body = body
        self.envelope = envelope
    }

    /// Creates an endpoint sent to an absolute URL rather than to a path below the environment's base URL: the
    /// next page a `Link` header names, or a resource a `Location` header points at.
    ///
    ///     extension Endpoint where Kind == EndpointKinds.Private, Response == [Issue] {
    ///         static func page(at url: URL) -> Self { Endpoint(url: url) }
    ///     }
    ///
    /// Only `http` and `https` URLs with a host and without user info are sent; any other fails with
    /// ``EndpointError/Kind/invalidRequest``. See ``url`` for the credentials such a request carries.
    ///
    /// - Parameters:
    ///   - method: The request method.
    ///   - url: The absolute URL.
    ///   - queryItems: Query items added after the URL's own query.
    ///   - headers: Headers for this endpoint.
    ///   - body: The request body.
    ///   - envelope: How to unwrap the response, or `nil` for the client's setting.
    public init(
        method: HTTPMethod = .get,
        url: URL,
        queryItems: [URLQueryItem] = [],
        headers: HTTPHeaders = HTTPHeaders(),
        body: (any RequestBody)? = nil,
        envelope: ResponseEnvelope? = nil
    ) {
        self.init(method: method, path: "", queryItems: queryItems, headers: headers, body: body, envelope: envelope)
        self.url = url
    }

    /// Creates an endpoint whose query is written as name–value pairs with typed values.
    ///
    ///     let items = Endpoint<EndpointKinds.Public, [Item]>(
    ///         path: "items",
    ///         query: ["tags": ["green", "hot"], "inStock": true, "after": cursor]
    ///     )
    ///
    /// Arrays repeat the name, `Bool`s are `true`/`false`, and an optional that is `nil` drops its item;
    /// see ``QueryValue`` for the whole encoding.
    ///
    /// - Parameters:
    ///   - method: The request method.
    ///   - path: The path below the environment's base URL.
    ///   - query: Query names and values, in order.
    ///   - headers: Headers for this endpoint.
    ///   - body: The request body.
    ///   - envelope: How to unwrap the response, or `nil` for the client's setting.
    public init(
        method: HTTPMethod = .get,
        path: EndpointPath,
        query: KeyValuePairs<String, any QueryValue>,
        headers: HTTPHeaders = HTTPHeaders(),
        body: (any RequestBody)? = nil,
        envelope: ResponseEnvelope? = nil
    ) {
        self.init(
            method: method,
            path: path,
            queryItems: [URLQueryItem](query: query),
            headers: headers,
            body: body,
            envelope: envelope
        )
    }
}

extension Endpoint {
    /// The same request, read as `NewResponse` instead: e.g. `Data` for the raw body of an endpoint declared with
    /// a model, or another model for a variant of the same resource.
    ///
    ///     let raw = try await client.exchange(for: Endpoint<EndpointKinds.Public, Item>.item(id).decoding(as: Data.self))
    ///
    /// Everything but the response type is kept: method, URL, headers, body, settings and options.
    public func decoding<NewResponse>(as type: NewResponse.Type) -> Endpoint<Kind, NewResponse> {
        var endpoint = Endpoint<Kind, NewResponse>(
            method: method,
            path: path,
            queryItems: queryItems,
            headers: headers,
            body: body,
            envelope: envelope
        )
        endpoint.url = url
        endpoint.timeout = timeout
        endpoint.idleTimeout = idleTimeout
        endpoint.maximumResponseSize = maximumResponseSize
        endpoint.decoder = decoder
        endpoint.options = options
        return endpoint
    }
}
