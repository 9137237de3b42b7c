import Foundation

/// Instruments every request that goes on the wire: each retry and each redirect hop of a call is one, a response
/// the cache serves is none. Tracing is its use: one client span per physical request, with the trace context
/// written into the request's headers so that the server continues the trace.
///
/// A ``Middleware`` that also conforms is found in the client's ``EndpointClient/middleware`` when the client is
/// made, so that one value in that list covers the call (as a middleware, where it sits in the list) and every
/// request of it (here). A client with none pays nothing for this protocol.
///
///     struct HopCounter: Middleware, HopInstrument {
///         func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext)
///             async throws -> TransportResponse
///         {
///             try await next(request, context: context)
///         }
///         func willSend(_ request: inout TransportRequest, _ exchange: ExchangeStart) -> (any HopTracker)? {
///             request.headers["X-Hop"] = "\(exchange.resendCount)"
///             return nil
///         }
///         func cacheAnswered(_ source: ResponseSource, for request: RequestSummary, context: RequestContext) {}
///     }
///
/// The calls are made on the task that makes the call, in order, and must be quick.
public protocol HopInstrument: Sendable {
    /// A request is about to go on the wire: after the cache (whose conditions it carries) and before the header
    /// check, which checks what this adds too. Returns what is told how the request ends, or `nil`.
    func willSend(_ request: inout TransportRequest, _ exchange: ExchangeStart) -> (any HopTracker)?

    /// The client's ``HTTPCache`` answered `request`: from its store without the network (``ResponseSource/cache``),
    /// after a 304 (``ResponseSource/revalidated``), or not at all (``ResponseSource/network``).
    func cacheAnswered(_ source: ResponseSource, for request: RequestSummary, context: RequestContext)
}

/// Told how one physical request ends; made by ``HopInstrument/willSend(_:_:)``.
public protocol HopTracker: Sendable {
    /// The response head arrived.
    func headReceived(statusCode: Int, headers: HTTPHeaders)
    /// The response head arrived over HTTP `protocolVersion` (`"1.1"`, `"2"`), when the transport knows it. By
    /// default, ``headReceived(statusCode:headers:)``.
    func headReceived(statusCode: Int, headers: HTTPHeaders, protocolVersion: String?)
    /// The request ended, after its body (or, for a streamed body, its head): `record` holds the outcome.
    func ended(_ record: ExchangeRecord)
}

/// What a ``HopInstrument`` knows of a request about to go on the wire.
public struct ExchangeStart: Sendable {
    /// The method and redacted URL.
    public var request: RequestSummary
    /// Which attempt of the call this is, from 1.
    public var attempt: Int
    /// Which hop of the attempt: 0 for the first request, 1 after the first redirect.
    public var hop: Int
    /// How many physical requests of this call went before this one, whatever the reason (retry, redirect,
    /// token refresh): OpenTelemetry's `http.request.resend_count`, 0 for the first.
    public var resendCount: Int
    /// The call's context: its options and its ``RequestContext/urlTemplate``.
    public var context: RequestContext
    /// Where the request goes, read from its URL only when asked (an instrument with nothing to report never
    /// parses it).
    private var server: Server

    private enum Server: Sendable {
        case url(URL)
        case given(address: String?, port: Int?)
    }

    /// The host the request goes to, or `nil` when the URL has none.
    public var serverAddress: String? {
        switch server {
        case .url(let url): url.host
        case .given(let address, _): address
        }
    }

    /// The port it goes to: the URL's, or the scheme's default (443 for `https`, 80 for `http`).
    public var serverPort: Int? {
        switch server {
        case .url(let url): Origin(url).port
        case .given(_, let port): port
        }
    }

    /// Describes a request about to be sent, for tests of an instrument; a client makes its own.
    public init(
        request: RequestSummary,
        serverAddress: String?,
        serverPort: Int?,
        attempt: Int,
        hop: Int,
        resendCount: Int,
        context: RequestContext
    ) {
        self.request = request
        self.server = .given(address: serverAddress, port: serverPort)
        self.attempt = attempt
        self.hop = hop
        self.resendCount = resendCount
        self.context = context
    }

    /// Describes `url`'s request, its server read when asked.
    init(request: RequestSummary, url: URL, attempt: Int, hop: Int, resendCount: Int, context: RequestContext) {
        self.request = request
        self.server = .url(url)
        self.attempt = attempt
        self.hop = hop
        self.resendCount = resendCount
        self.context = context
    }
}

extension HopTracker {
    /// Calls ``headReceived(statusCode:headers:)``: a tracker that has no use for the version need not read it.
    public func headReceived(statusCode: Int, headers: HTTPHeaders, protocolVersion: String?) {
        headReceived(statusCode: statusCode, headers: headers)
    }
}
