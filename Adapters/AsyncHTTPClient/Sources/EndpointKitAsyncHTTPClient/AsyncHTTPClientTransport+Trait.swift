#if !AsyncHTTPClient
/// Stands in for the transport when EndpointKit's `AsyncHTTPClient` trait is off, so that using it says how to turn
/// the trait on instead of naming a type that does not exist.
@available(
    *,
    unavailable,
    message: """
        AsyncHTTPClientTransport needs EndpointKit's AsyncHTTPClient trait: .package(url: \
        "https://github.com/endpointkit/endpointkit.git", from: "0.12.0", traits: ["AsyncHTTPClient"])
        """
)
public final class AsyncHTTPClientTransport {
    /// Unavailable: turn on the `AsyncHTTPClient` trait.
    public init() {}
}
#endif
