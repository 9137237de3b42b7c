import Foundation

/// Where endpoints are sent: a base URL, plus headers and query items every request gets unless it sets its own.
///
/// Declare your environments as plain static values and point a client at one; endpoints never change:
///
///     extension ServerEnvironment {
///         static let production = ServerEnvironment(baseURL: URL(string: "https://api.example.com/v1")!)
///         static let staging = ServerEnvironment(
///             baseURL: URL(string: "https://staging.example.com/v1")!,
///             headers: ["X-Debug": "1"]
///         )
///     }
///
/// The base URL's path is kept: `/v1` with the endpoint path `items/42` is sent as `/v1/items/42`.
public struct ServerEnvironment: Sendable, Hashable, CustomReflectable {
    /// The URL every endpoint path is appended to; it must be `http` or `https` with a host.
    public var baseURL: URL {
        didSet { base = BaseURLParts(baseURL) }
    }
    /// The base URL taken apart once, for every request built against it.
    private(set) var base: BaseURLParts
    /// Headers sent with every request that does not set a header of the same name.
    public var headers: HTTPHeaders
    /// Query items sent with every request that does not have an item of the same name.
    public var queryItems: [URLQueryItem]

    /// The base URL, headers and query items with credentials redacted, so that `dump` never shows one.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "baseURL": Redaction.redactedString(for: baseURL), "headers": headers,
                "queryItems": Redaction.redacted(queryItems),
            ],
            displayStyle: .struct
        )
    }

    /// Creates an environment.
    public init(baseURL: URL, headers: HTTPHeaders = HTTPHeaders(), queryItems: [URLQueryItem] = []) {
        self.baseURL = baseURL
        self.base = BaseURLParts(baseURL)
        self.headers = headers
        self.queryItems = queryItems
    }
}

/// What every endpoint URL built against a base URL starts with, worked out once instead of on every request (a
/// character-by-character search for `#` and `?` in the base URL cost 17,000 instructions per call).
struct BaseURLParts: Sendable, Hashable {
    /// Whether the base URL is `http` or `https` with a host, as it must be.
    let isHTTPWithHost: Bool
    /// The base URL without its fragment, its query and trailing slashes.
    let prefix: String
    /// The base URL's own query, sent before the endpoint's, or `nil`.
    let query: String?

    init(_ url: URL) {
        let scheme = url.scheme?.lowercased()
        isHTTPWithHost = (scheme == "http" || scheme == "https") && !(url.host ?? "").isEmpty
        var text = url.absoluteString
        if let fragment = text.firstIndex(of: "#") { text = String(text[..<fragment]) }
        var query: String?
        if let question = text.firstIndex(of: "?") {
            query = String(text[text.index(after: question)...])
            text = String(text[..<question])
        }
        while text.hasSuffix("/") { text.removeLast() }
        prefix = text
        self.query = query
    }
}
