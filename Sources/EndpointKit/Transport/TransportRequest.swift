import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request as middleware and transports see it: method, URL, headers and body, typed; nothing else.
///
/// ``EndpointClient`` builds one from the `URLRequest` an endpoint's kind prepared, once per call; middleware
/// change it through its typed properties, and a transport turns it into whatever its HTTP stack sends.
///
///     struct RequestID: Middleware {
///         func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext) async throws
///             -> TransportResponse
///         {
///             var request = request
///             request.headers["X-Request-ID"] = UUID().uuidString
///             return try await next(request, context: context)
///         }
///     }
///
/// Whatever middleware write, the client checks the method and every header right before each hop reaches
/// the transport: a name that is not a token, a value with CR, LF, NUL or another control character, or a
/// header the transport manages (`Host`, `Content-Length`, …) fails the call with
/// ``EndpointError/Kind/invalidRequest`` and nothing is sent.
public struct TransportRequest: Sendable, CustomStringConvertible, CustomReflectable {
    /// The request method.
    public var method: HTTPMethod
    /// The absolute `http` or `https` URL.
    public var url: URL {
        didSet { isURLChecked = false }
    }
    /// The header fields, in order; repeated names are kept.
    public var headers: HTTPHeaders
    /// The body, or `nil` for none.
    public var body: Body?
    /// Whether ``url`` passed the check of ``validate()`` and has not changed since: the check runs once per URL,
    /// not once per hop, as the headers' does.
    var isURLChecked = false

    /// Creates a request.
    public init(
        method: HTTPMethod = .get,
        url: URL,
        headers: HTTPHeaders = HTTPHeaders(),
        body: Body? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
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
                "bodyLength": body?.length as Any,
            ],
            displayStyle: .struct
        )
    }
}
