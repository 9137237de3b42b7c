#if !AsyncHTTPClient
import EndpointKit

/// Stands in for the transport when EndpointKit's `AsyncHTTPClient` trait is off, so that using it says how to turn
/// the trait on instead of naming a type that does not exist. It conforms to `Transport`, so that the message is
/// the one the compiler gives wherever the docs use it: named alone, or passed as a client's transport.
@available(
    *,
    unavailable,
    message: """
        AsyncHTTPClientTransport needs EndpointKit's AsyncHTTPClient trait: .package(url: \
        "https://github.com/endpointkit/endpointkit.git", from: "0.14.0", traits: ["AsyncHTTPClient"])
        """
)
public final class AsyncHTTPClientTransport: Transport {
    /// Unavailable: turn on the `AsyncHTTPClient` trait.
    public init() {}

    /// Unavailable: turn on the `AsyncHTTPClient` trait. Never called: no value of this type can be made.
    public func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse {
        throw EndpointError(.transportFailed, "AsyncHTTPClientTransport needs EndpointKit's AsyncHTTPClient trait")
    }
}
#endif
