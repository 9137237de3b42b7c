import Foundation

/// Gives every non-idempotent request (`POST`, `PATCH`, …) an `Idempotency-Key` header, the same for all
/// attempts of one call, so that a server that supports the header runs the request once however often it
/// arrives, and ``Retry`` may send it again.
///
///     EndpointClient(environment: env, middleware: [IdempotencyKey(), Retry()])
///
/// Put it before ``Retry`` so that retries reuse the key. A request that already has the header keeps its
/// own; an endpoint sets one by hand with `endpoint.headers["Idempotency-Key"] = key`, or opts out with
/// `options.isIdempotencyKeyed = false`. With the header, ``URLSessionTransport`` also lets the request use a
/// pooled connection, since a resend can no longer do harm.
public struct IdempotencyKey: Middleware {
    private let makeKey: @Sendable () -> String

    /// Creates the step.
    ///
    /// - Parameter makeKey: Makes a key for each call; a random UUID unless given.
    public init(makeKey: @escaping @Sendable () -> String = { UUID().uuidString }) {
        self.makeKey = makeKey
    }

    /// Adds the header to a non-idempotent request without one.
    public func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext) async throws
        -> TransportResponse
    {
        guard context.options.isIdempotencyKeyed, !request.method.isIdempotent,
            !request.headers.contains(.idempotencyKey)
        else { return try await next(request, context: context) }
        var request = request
        request.headers[.idempotencyKey] = makeKey()
        return try await next(request, context: context)
    }
}
