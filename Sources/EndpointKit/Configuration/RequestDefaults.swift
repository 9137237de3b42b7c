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
public struct RequestDefaults: Sendable, CustomReflectable {
    /// Encodes JSON bodies that do not bring their own encoder.
    public var encoder: JSONEncoder
    /// Decodes response bodies.
    public var decoder: JSONDecoder
    /// How long one attempt may take, all of its redirect hops included, before failing with
    /// ``EndpointError/Kind/timedOut``: a total deadline, 60 seconds unless set; `nil` (or 10⁹ seconds and more)
    /// for none. It must be positive.
    ///
    /// For a response read whole (``EndpointClient/response(for:using:)`` and the like) it covers the body too.
    /// For a stream (``EndpointClient/stream(for:using:)->StreamedResponse``, JSON Lines, events) and a download
    /// it covers the wait for the response head only: the body is then bounded by ``idleTimeout``.
    public var timeout: Duration?
    /// How long the transport may wait without receiving a byte before failing with
    /// ``EndpointError/Kind/timedOut``, or `nil` to use ``timeout`` (rounded up to whole seconds by
    /// ``URLSessionTransport``). Streams need it, since a total deadline would end them.
    public var idleTimeout: Duration?
    /// The largest response body a call reads into memory, in bytes: 64 MiB unless set. A larger body fails
    /// with ``EndpointError/Kind/responseTooLarge`` at once when its `Content-Length` says so, otherwise as the
    /// byte that passes the limit arrives, and the transfer stops. Endpoints can set their own.
    public var maximumResponseSize: Int = RequestDefaults.defaultMaximumResponseSize
    /// When set, ``EndpointClient/download(for:using:to:)`` asks for the file this many bytes at a time, each
    /// part a `Range` request (after the first, with `If-Range`), instead of in one response; `nil` (the default)
    /// asks for it whole.
    ///
    /// It bounds a download's memory on a transport that cannot slow a server down (Linux URLSession): what
    /// waits between the network and the disk is at most one part. Each part is a request of its own, through
    /// the whole pipeline (count them against a rate limit); a request whose body cannot be sent again is sent
    /// once, for the whole file. A server that ignores `Range` sends the whole file
    /// in its first answer, which is written as usual; from one that names no `ETag` or `Last-Modified`, or no
    /// size, the file is asked for again, whole, after the first part, since later parts could not be checked
    /// against it.
    /// Transports with back-pressure (`AsyncHTTPClientTransport`) do not need it.
    public var downloadPartSize: Int?
    /// Headers every request gets unless the environment or the endpoint sets the same name:
    /// `Accept: application/json` and a `User-Agent` naming EndpointKit and its version.
    public var headers: HTTPHeaders

    /// More header names whose values are credentials, besides `Authorization`, `Proxy-Authorization`,
    /// `Cookie` and the common API-key headers: the one list that redacts errors, logs, observer events and
    /// ``CURLCommand`` output, and that a redirect to another origin strips.
    public var sensitiveHeaders: Set<HTTPHeaders.Name> = []

    /// More query names whose values are credentials, besides the built-in ones (`token`, `access_token`,
    /// `api_key`, `key`, `sig`, `signature`, `X-Amz-Signature`, `X-Amz-Credential`, `jwt`, …): redacted in
    /// every printed URL. Compared without case, `-` and `_`.
    public var sensitiveQueryNames: Set<String> = []

    /// The settings with header values redacted as the client would, so that `dump` never shows a credential.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "headers": Redactor(self).redacted(headers, sorted: false), "timeout": timeout as Any,
                "idleTimeout": idleTimeout as Any, "maximumResponseSize": maximumResponseSize,
                "downloadPartSize": downloadPartSize as Any, "sensitiveHeaders": sensitiveHeaders,
                "sensitiveQueryNames": sensitiveQueryNames,
            ],
            displayStyle: .struct
        )
    }

    /// The default ``maximumResponseSize``: 64 MiB.
    public static let defaultMaximumResponseSize = 64 << 20

    /// The EndpointKit release this source belongs to.
    public static let libraryVersion = "0.14.0"

    /// The `User-Agent` sent unless you set another: `EndpointKit/` and ``libraryVersion``.
    public static let userAgent = "EndpointKit/\(libraryVersion)"

    /// Creates defaults: a plain `JSONEncoder` and `JSONDecoder`, a 60-second timeout, and JSON `Accept` and
    /// EndpointKit `User-Agent` headers.
    public init(
        encoder: JSONEncoder = JSONEncoder(),
        decoder: JSONDecoder = JSONDecoder(),
        timeout: Duration? = .seconds(60),
        headers: HTTPHeaders = [.accept: "application/json", .userAgent: RequestDefaults.userAgent]
    ) {
        self.encoder = encoder
        self.decoder = decoder
        self.timeout = timeout
        self.headers = headers
    }
}
