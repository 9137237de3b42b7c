#if !Postgres
import EndpointKit

/// Stands in for the PostgreSQL cache storage when EndpointKit's `Postgres` trait is off, so that using it says how
/// to turn the trait on instead of naming a type that does not exist.
@available(
    *,
    unavailable,
    message: """
        PostgresCacheStorage needs EndpointKit's Postgres trait: .package(url: \
        "https://github.com/endpointkit/endpointkit.git", from: "0.15.0", traits: ["Postgres"])
        """
)
public final class PostgresCacheStorage: HTTPCache.Storage {
    /// Unavailable: turn on the `Postgres` trait.
    public init() {}
    /// Unavailable: turn on the `Postgres` trait.
    public func entries(for key: HTTPCache.Key) -> [HTTPCache.Entry] { [] }
    /// Unavailable: turn on the `Postgres` trait.
    public func store(_ entry: HTTPCache.Entry, for key: HTTPCache.Key) {}
    /// Unavailable: turn on the `Postgres` trait.
    public func removeEntries(for key: HTTPCache.Key) {}
    /// Unavailable: turn on the `Postgres` trait.
    public func removeEntries(forURL url: String) {}
    /// Unavailable: turn on the `Postgres` trait.
    public func removeAll() {}
}
#endif
