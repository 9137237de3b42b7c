import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request as middleware and transports see it: method, URL, headers, body and timeouts, typed.
///
/// ``EndpointClient`` builds one from the `URLRequest` an endpoint's kind prepared, once per call; middleware
/// change it through its typed properties, and a transport turns it into whatever its HTTP stack sends.
///
///     var request = request
///     request.headers["X-Request-ID"] = UUID().uuidString
///     return try await next(request, context: context)
///
/// Whatever middleware write, the client checks the method and every header right before each hop reaches
/// the transport: a name that is not a token, a value with CR, LF, NUL or another control character, or a
/// header the transport manages (`Host`, `Content-Length`, …) fails the call with
/// ``EndpointError/Kind/invalidRequest`` and nothing is sent.
public struct TransportRequest: Sendable, CustomStringConvertible, CustomReflectable {
    /// The request method.
    public var method: HTTPMethod
    /// The absolute `http` or `https` URL.
    public var url: URL
    /// The header fields, in order; repeated names are kept.
    public var headers: HTTPHeaders
    /// The body, or `nil` for none.
    public var body: Body?
    /// The time one attempt may take, all its redirect hops and its whole body included, or `nil` for no limit.
    ///
    /// ``EndpointClient`` enforces it itself; a transport may use it to size timers of its own.
    public var timeout: Duration?
    /// When the caller streams the body: the most bytes a transport that cannot slow the server down (Linux
    /// URLSession) may hold for a reader that fell behind, after which the body fails with
    /// ``EndpointError/Kind/responseTooLarge``; `nil` for no limit. ``EndpointClient`` sets it to the call's
    /// ``RequestDefaults/maximumResponseSize`` for streamed calls.
    public var streamBufferLimit: Int?
    /// Whether ``timeout`` covers the whole body (`true`, the default) or only the wait for the head, when the
    /// caller streams a body that may last as long as it likes (a download, an event stream): then only
    /// ``idleTimeout`` bounds it.
    public var timeoutCoversBody = true
    /// The longest the transport may wait without receiving a byte, or `nil` for the transport's default.
    public var idleTimeout: Duration?
    /// Set when the caller will read the whole body, up to this many bytes: a transport may then read it
    /// itself before returning (``URLSessionTransport`` does, to wake the caller once instead of twice), failing
    /// with ``EndpointError/Kind/responseTooLarge`` past the limit. `nil` when the caller streams the body.
    public var wholeBodyLimit: Int?
    /// Called by a transport that can report upload progress, as the body goes out: the bytes sent so far and
    /// the total when known, or `nil` when nobody listens. ``EndpointClient`` sets it when an
    /// ``ExchangeObserver`` listens, and turns the calls into ``ExchangeEvent/bytesSent(attempt:sent:expected:)``
    /// events.
    public var uploadProgress: (@Sendable (_ sent: Int64, _ expected: Int64?) -> Void)?

    /// A file made for this call only (an assembled multipart body), deleted when the call is over.
    var temporaryBodyFile: URL?

    /// Where a streamed body goes, decided from the head of each hop's response: a writer that receives the
    /// chunks as they arrive, on the transport's thread, or `nil` to leave the body to its reader. Set for
    /// downloads, so that the bytes that arrive while the caller wakes up do not wait in memory;
    /// ``URLSessionTransport`` installs it as the head arrives, and any transport's body is drained into it
    /// later otherwise.
    var bodySink: (@Sendable (_ statusCode: Int, _ headers: HTTPHeaders) -> (@Sendable (Data) throws -> Void)?)?

    /// Whether the endpoint's absolute URL is at another origin than the environment's, so that the first hop,
    /// like a redirect there, goes without credentials. Set when the request is built, which knows it for free.
    var leavesEnvironmentOrigin = false

    /// Creates a request.
    public init(
        method: HTTPMethod = .get,
        url: URL,
        headers: HTTPHeaders = HTTPHeaders(),
        body: Body? = nil,
        timeout: Duration? = nil,
        idleTimeout: Duration? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.idleTimeout = idleTimeout
    }

    /// Whether the request can be sent a second time (by a retry, a 307/308 redirect or a replay after a
    /// token refresh): it has no body, or a body that can be read again.
    public var canBeSentAgain: Bool { body?.canBeSentAgain ?? true }

    /// `METHOD URL` with secrets redacted by the built-in lists.
    public var description: String { RequestSummary(self).description }

    /// The method, redacted URL and headers, and the body's length, so that `dump` never shows a credential.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "method": method, "url": Redaction.redactedString(for: url), "headers": headers,
                "bodyLength": body?.length as Any, "timeout": timeout as Any,
            ],
            displayStyle: .struct
        )
    }

    /// Deletes the body file made for this call only.
    func removeTemporaryBodyFile() {
        guard let file = temporaryBodyFile else { return }
        try? FileManager.default.removeItem(at: file)
    }
}
