#if !Postgres
import EndpointKit

/// Stands in for the PostgreSQL rate limits when EndpointKit's `Postgres` trait is off, so that using them says how to
/// turn the trait on instead of naming a type that does not exist.
@available(
    *,
    unavailable,
    message: """
        PostgresRateLimits needs EndpointKit's Postgres trait: .package(url: \
        "https://github.com/endpointkit/endpointkit.git", from: "0.15.0", traits: ["Postgres"])
        """
)
public final class PostgresRateLimits: RateLimitStorage {
    /// Unavailable: turn on the `Postgres` trait.
    public init() {}
    /// Unavailable: turn on the `Postgres` trait.
    public func reserve(_ key: String, limit: RateLimit, maxWait: Duration) async throws(EndpointError)
        -> RateLimitGrant
    {
        .refused(nextSlotIn: .zero)
    }
    /// Unavailable: turn on the `Postgres` trait.
    public func pause(_ key: String, for duration: Duration) async throws(EndpointError) {}
    /// Unavailable: turn on the `Postgres` trait.
    public func pauseRemaining(_ key: String) -> Duration? { nil }
}
#endif
