import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request's method and URL, safe to log: the URL's password and secret query values (`token`,
/// `api_key`, `password`, …) are redacted.
public struct RequestSummary: Sendable, Hashable, CustomStringConvertible {
    /// The request method.
    public var method: HTTPMethod
    /// The URL with secrets redacted.
    public var redactedURL: String

    /// Summarises `request`.
    public init(_ request: URLRequest) {
        method = HTTPMethod(request.httpMethod ?? "GET")
        redactedURL = request.url.map(Redaction.redactedString(for:)) ?? "<no URL>"
    }

    /// Summarises `request`, redacting by the built-in lists.
    public init(_ request: TransportRequest) {
        self = Redactor().summary(of: request)
    }

    /// Summarises a request that has not been built, from its method and redacted URL text.
    public init(method: HTTPMethod, redactedURL: String) {
        self.method = method
        self.redactedURL = redactedURL
    }

    /// `METHOD URL`, e.g. `GET https://api.example.com/v1/search?q=swift`.
    public var description: String { "\(method) \(redactedURL)" }
}
