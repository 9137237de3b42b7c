/// Where a response came from: the network, the client's ``HTTPCache``, or the cache after the server
/// answered a conditional request with 304 Not Modified.
public enum ResponseSource: Sendable, Hashable, CustomStringConvertible {
    /// Sent and answered in full (the cache had nothing usable, or is off).
    case network
    /// Served from the cache without asking the server: fresh, or stale where allowed (`max-stale`,
    /// `stale-while-revalidate`, `stale-if-error`).
    case cache
    /// Served from the cache after the server confirmed it with a 304; the headers are the stored ones updated
    /// by the 304's.
    case revalidated

    /// `network`, `cache` or `revalidated`.
    public var description: String {
        switch self {
        case .network: "network"
        case .cache: "cache"
        case .revalidated: "revalidated"
        }
    }
}
