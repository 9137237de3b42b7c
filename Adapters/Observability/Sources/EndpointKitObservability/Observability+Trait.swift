#if !Observability
/// Stands in for the middleware when EndpointKit's `Observability` trait is off, so that using it says how to turn
/// the trait on instead of naming a type that does not exist.
@available(
    *,
    unavailable,
    message: """
        Observability needs EndpointKit's Observability trait: .package(url: \
        "https://github.com/endpointkit/endpointkit.git", from: "0.12.0", traits: ["Observability"])
        """
)
public struct Observability {
    /// Unavailable: turn on the `Observability` trait.
    public init() {}
}
#endif
