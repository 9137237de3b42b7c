#if !Postgres
import EndpointKit

/// Stands in for the PostgreSQL outbox when EndpointKit's `Postgres` trait is off, so that using it says how to turn
/// the trait on instead of naming a type that does not exist.
@available(
    *,
    unavailable,
    message: """
        PostgresOutbox needs EndpointKit's Postgres trait: .package(url: \
        "https://github.com/endpointkit/endpointkit.git", from: "0.14.0", traits: ["Postgres"])
        """
)
public final class PostgresOutbox<Kind: EndpointKind>: Sendable {
    /// Unavailable: turn on the `Postgres` trait.
    public init() {}
}
#endif
