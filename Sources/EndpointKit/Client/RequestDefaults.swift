import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Settings every request of a client starts from; an endpoint's own headers and body encoder win.
///
///     var defaults = RequestDefaults()
///     defaults.encoder.keyEncodingStrategy = .convertToSnakeCase
///     defaults.headers[.acceptLanguage] = "de"
///     let client = EndpointClient(environment: environment, defaults: defaults)
public struct RequestDefaults: Sendable {
    /// Encodes JSON bodies that do not bring their own encoder.
    public var encoder: JSONEncoder
    /// Decodes response bodies.
    public var decoder: JSONDecoder
    /// Seconds one attempt may take before failing with ``EndpointError/Kind/timedOut``, enforced by EndpointKit
    /// itself (fractions included); `.infinity` for no deadline. It must be positive.
    public var timeout: TimeInterval
    /// The cache policy requests start with; kinds may change it.
    public var cachePolicy: URLRequest.CachePolicy
    /// Headers every request gets unless the environment or the endpoint sets the same name:
    /// `Accept: application/json` and a `User-Agent` naming EndpointKit and its version.
    public var headers: HTTPHeaders

    /// More header names whose values are credentials: redacted in ``CURLCommand`` output and error context
    /// like `Authorization` and `Cookie` always are.
    public var sensitiveHeaders: Set<HTTPHeaders.Name> = []

    /// The EndpointKit release this source belongs to.
    public static let libraryVersion = "0.1.0"

    /// The `User-Agent` sent unless you set another: `EndpointKit/` and ``libraryVersion``.
    public static let userAgent = "EndpointKit/\(libraryVersion)"

    /// Creates defaults: a plain `JSONEncoder` and `JSONDecoder`, a 60-second timeout, no local cache data,
    /// and JSON `Accept` and EndpointKit `User-Agent` headers.
    public init(
        encoder: JSONEncoder = JSONEncoder(),
        decoder: JSONDecoder = JSONDecoder(),
        timeout: TimeInterval = 60,
        cachePolicy: URLRequest.CachePolicy = .reloadIgnoringLocalCacheData,
        headers: HTTPHeaders = [.accept: "application/json", .userAgent: RequestDefaults.userAgent]
    ) {
        self.encoder = encoder
        self.decoder = decoder
        self.timeout = timeout
        self.cachePolicy = cachePolicy
        self.headers = headers
    }
}
