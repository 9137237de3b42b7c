import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One step between "request prepared" and "response received": it may change the request, call the next
/// step zero or more times, and inspect or replace the response.
///
///     struct RequestID: Middleware {
///         func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext)
///             async throws -> TransportResponse
///         {
///             var request = request
///             request.headers["X-Request-ID"] = UUID().uuidString
///             return try await next(request, context: context)
///         }
///     }
///
/// The whole path from a prepared request to a response, in the order a call takes it (the engine's steps are in
/// `Pipeline/`; the cache's in `Caching/`, the transport's in `Transport/`):
/// 1. the client's ``EndpointClient/middleware``, in array order, the first outermost;
/// 2. the attempt: numbered (every send counts, whoever asked for it), reported to observers, and timed by
///    one deadline (``RequestContext/timeout``) that covers all of its redirect hops and its whole body;
/// 3. before the first hop only, the check that a kind needing credentials got them from a middleware;
/// 4. for every hop, the ``HTTPCache`` (a fresh stored response ends the hop; a stale one makes the request
///    conditional), then the check of the method and every header as they go on the wire, whatever set them;
///    then the transport, and the body read up to the call's size limit;
/// 5. the redirects, followed by the ``RedirectPolicy``, which strips credentials when the origin changes;
/// 6. the client's ``EndpointClient/validators`` on the final response, whose "send again" starts a new
///    attempt through step 1 on the same counter and clock.
///
/// A recommended order: `[BearerAuthentication, Retry, Throttle]`: authentication outside retry, so a replay
/// after a refresh is retried too; the throttle inside retry, so backoff waits hold no slot. Observation is
/// not interception: ``ExchangeLogging`` and other ``ExchangeObserver``s see every attempt and every hop
/// wherever they are listed. Errors a step throws reach the caller as ``EndpointError``.
public protocol Middleware: Sendable {
    /// Handles `request`, usually by calling `next` with it, or a changed copy, and returning its response.
    func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext) async throws
        -> TransportResponse
}

/// The rest of the chain after a ``Middleware``.
public struct MiddlewareNext: Sendable {
    private let run: @Sendable (TransportRequest, RequestContext) async throws -> TransportResponse

    /// Wraps the rest of a chain; tests of a middleware can pass their own.
    public init(_ run: @escaping @Sendable (TransportRequest, RequestContext) async throws -> TransportResponse) {
        self.run = run
    }

    /// Sends `request` through the rest of the chain.
    public func callAsFunction(_ request: TransportRequest, context: RequestContext) async throws -> TransportResponse {
        try await run(request, context)
    }
}
