import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request's method and URL, safe to log: the URL's password and secret query values (`token`,
/// `api_key`, `password`, …) are redacted.
public struct RequestSummary: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    private enum Address: Sendable {
        case text(String)
        /// Redacted only when read: most summaries made on the way (for observers, for errors that are caught
        /// and retried) are never printed.
        case unredacted(URL, Redactor)
    }

    /// The request method.
    public var method: HTTPMethod
    private var address: Address

    /// The URL with secrets redacted.
    public var redactedURL: String {
        get {
            switch address {
            case .text(let text): text
            case .unredacted(let url, let redactor): redactor.redactedString(for: url)
            }
        }
        set { address = .text(newValue) }
    }

    /// Summarises `request`.
    public init(_ request: URLRequest) {
        method = HTTPMethod(request.httpMethod ?? "GET")
        address = .text(request.url.map(Redaction.redactedString(for:)) ?? "<no URL>")
    }

    /// Summarises `request`, redacting by the built-in lists.
    public init(_ request: TransportRequest) {
        self = Redactor().summary(of: request)
    }

    /// Summarises a request that has not been built, from its method and redacted URL text.
    public init(method: HTTPMethod, redactedURL: String) {
        self.method = method
        self.address = .text(redactedURL)
    }

    /// A summary of `url` that `redactor` redacts when it is first read.
    init(method: HTTPMethod, url: URL, redactor: Redactor) {
        self.method = method
        self.address = .unredacted(url, redactor)
    }

    /// `METHOD URL`, e.g. `GET https://api.example.com/v1/search?q=swift`.
    public var description: String { "\(method) \(redactedURL)" }

    /// Whether two summaries show the same method and redacted URL.
    public static func == (lhs: RequestSummary, rhs: RequestSummary) -> Bool {
        lhs.method == rhs.method && lhs.redactedURL == rhs.redactedURL
    }

    /// Hashes the method and the redacted URL.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(redactedURL)
    }

    /// A mirror of the method and the redacted URL only, so that `dump` never shows the URL unredacted.
    public var customMirror: Mirror {
        Mirror(self, children: ["method": method, "redactedURL": redactedURL], displayStyle: .struct)
    }
}
