#if !Observability
import EndpointKit

/// Stands in for the middleware when EndpointKit's `Observability` trait is off, so that using it says how to turn
/// the trait on instead of naming a type that does not exist. It conforms to `Middleware`, so that the message is
/// the one the compiler gives wherever the docs use it: named alone, or in a client's middleware.
@available(
    *,
    unavailable,
    message: """
        Observability needs EndpointKit's Observability trait: .package(url: \
        "https://github.com/endpointkit/endpointkit.git", from: "0.14.0", traits: ["Observability"])
        """
)
public struct Observability: Middleware {
    /// Unavailable: turn on the `Observability` trait.
    public init() {}

    /// Unavailable: turn on the `Observability` trait. Never called: no value of this type can be made.
    public func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext) async throws
        -> TransportResponse
    {
        try await next(request, context: context)
    }
}
#endif
