import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default ``Transport``: sends requests with a `URLSession` it owns.
///
/// The session is configured for server and app code alike: an ephemeral configuration, no cookie storage
/// and no URL cache (on Linux the shared session persists cookies to a file the next process reads, and on
/// Apple platforms a shared cache can serve one user's response to another), and one session-level
/// delegate that hands every redirect back as a response, so that ``EndpointClient`` follows it by its
/// ``RedirectPolicy`` (Linux URLSession forwards `Authorization` everywhere, and never asks per-task
/// delegates about redirects).
///
///     let client = EndpointClient(environment: environment, transport: URLSessionTransport())
///
/// Timeouts are rounded up to whole seconds (at least 1), because Linux URLSession truncates fractions and
/// fails every request at once when given less than a second.
public final class URLSessionTransport: Transport {
    /// The session requests are sent through.
    public let session: URLSession
    /// The largest response body accepted, in bytes, or `nil` for no limit (only for sessions you pass).
    public let maximumResponseSize: Int?
    /// The delegate that collects bodies, when the transport owns its session.
    private let delegate: SessionDelegate?

    /// The default ``maximumResponseSize``: 64 MiB.
    public static let defaultMaximumResponseSize = 64 << 20

    /// Creates a transport with its own session built from `configuration`.
    ///
    /// - Parameters:
    ///   - configuration: The session's configuration; ``defaultConfiguration()`` unless given.
    ///   - maximumResponseSize: The largest body accepted, in bytes (after decompression). A larger one is
    ///     cancelled as soon as the limit is passed and fails with ``EndpointError/Kind/responseTooLarge``,
    ///     so a hostile or broken server cannot exhaust memory. `nil` for no limit.
    public init(
        configuration: URLSessionConfiguration = URLSessionTransport.defaultConfiguration(),
        maximumResponseSize: Int? = URLSessionTransport.defaultMaximumResponseSize
    ) {
        let delegate = SessionDelegate()
        self.delegate = delegate
        self.maximumResponseSize = maximumResponseSize
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    /// Creates a transport that sends through `session`, which you keep configuring and own.
    ///
    /// A session you pass follows redirects by its own delegate's rules before ``EndpointClient`` sees them;
    /// give it a delegate that declines redirects to keep EndpointKit's ``RedirectPolicy`` in charge.
    public init(session: URLSession) {
        self.session = session
        self.delegate = nil
        self.maximumResponseSize = nil
    }

    deinit {
        if delegate != nil { session.finishTasksAndInvalidate() }
    }

    /// An ephemeral configuration without cookies or a URL cache.
    public static func defaultConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return configuration
    }

    /// Sends `request`; cancelling the calling task cancels the `URLSessionTask`.
    public func send(_ request: TransportRequest) async throws -> HTTPResponse {
        var urlRequest = request.urlRequest
        urlRequest.timeoutInterval = Self.wholeSeconds(urlRequest.timeoutInterval)
        let (data, response): (Data, URLResponse)
        if let delegate {
            let task =
                request.bodyFileURL.map { session.uploadTask(with: urlRequest, fromFile: $0) }
                ?? session.dataTask(with: urlRequest)
            (data, response) = try await delegate.run(task, limit: maximumResponseSize)
        } else if let file = request.bodyFileURL {
            (data, response) = try await session.upload(for: urlRequest, fromFile: file)
        } else {
            (data, response) = try await session.data(for: urlRequest)
        }
        guard let http = response as? HTTPURLResponse else {
            throw URLError(.badServerResponse)
        }
        return HTTPResponse(statusCode: http.statusCode, headers: Self.headers(of: http), body: data, url: http.url)
    }

    static func wholeSeconds(_ interval: TimeInterval) -> TimeInterval {
        guard interval > 0 else { return 60 }
        // Linux multiplies by 1000 into an Int: keep far from overflow; a day of silence is "forever" here.
        guard interval < 86_400 else { return 86_400 }
        return max(1, interval.rounded(.up))
    }

    private static func headers(of response: HTTPURLResponse) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for (name, value) in response.allHeaderFields {
            headers.add(String(describing: value), for: HTTPHeaders.Name(String(describing: name)))
        }
        return headers
    }
}
