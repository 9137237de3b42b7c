import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One step between "request prepared" and "response received": it may change the request, call the next
/// step zero or more times, and inspect or replace the response.
///
///     struct RequestID: Middleware {
///         func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext)
///             async throws -> HTTPResponse
///         {
///             var request = request
///             request.urlRequest.setValue(UUID().uuidString, forHTTPHeaderField: "X-Request-ID")
///             return try await next(request, context: context)
///         }
///     }
///
/// A client runs its ``EndpointClient/middleware`` in array order, the first outermost, then follows
/// redirects by its ``RedirectPolicy`` and sends each hop through the transport under the request's
/// deadline; its ``EndpointClient/validators`` judge the final response. A recommended order:
/// `[BearerAuthentication, Retry, Throttle, ExchangeLogging]`: authentication outside retry, so a replay after
/// a refresh is retried too; the throttle inside retry, so backoff waits hold no slot; logging innermost,
/// so every attempt is reported. Errors a step throws reach the caller as ``EndpointError``.
public protocol Middleware: Sendable {
    /// Handles `request`, usually by calling `next` with it, or a changed copy, and returning its response.
    func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext) async throws
        -> HTTPResponse
}

/// The rest of the chain after a ``Middleware``.
public struct MiddlewareNext: Sendable {
    private let run: @Sendable (TransportRequest, RequestContext) async throws -> HTTPResponse

    /// Wraps the rest of a chain; tests of a middleware can pass their own.
    public init(_ run: @escaping @Sendable (TransportRequest, RequestContext) async throws -> HTTPResponse) {
        self.run = run
    }

    /// Sends `request` through the rest of the chain.
    public func callAsFunction(_ request: TransportRequest, context: RequestContext) async throws -> HTTPResponse {
        try await run(request, context)
    }
}

/// What middleware knows about a request besides the request itself.
public struct RequestContext: Sendable {
    /// The endpoint's options.
    public var options: RequestOptions
    /// Which attempt this is, from 1; ``Retry`` raises it for each retry.
    public var attempt: Int
    /// Whether the endpoint's kind needs credentials from a middleware such as ``BearerAuthentication``.
    public var requiresAuthentication: Bool
    /// The deadline for one attempt in seconds, from the endpoint or the client.
    public var timeout: TimeInterval

    /// Creates a context.
    public init(
        options: RequestOptions = RequestOptions(),
        attempt: Int = 1,
        requiresAuthentication: Bool = false,
        timeout: TimeInterval = 60
    ) {
        self.options = options
        self.attempt = attempt
        self.requiresAuthentication = requiresAuthentication
        self.timeout = timeout
    }
}
