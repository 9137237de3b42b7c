/// What one endpoint asks of the client's ``HTTPCache``: the request directives of RFC 9111 §5.2.1, set as
/// values rather than written into a `Cache-Control` header by hand.
///
///     var endpoint = Endpoint.repository("apple/swift")
///     endpoint.options.cacheDirectives = .revalidate            // always ask the server (a 304 is cheap)
///     endpoint.options.cacheDirectives.maxStale = .seconds(300) // or: a value up to 5 minutes stale will do
///
/// The directives steer the client's own cache and are not sent. A `Cache-Control` header the endpoint sets
/// counts too, and is sent. To keep an endpoint out of the cache altogether, set
/// ``RequestOptions/isCached`` to `false`.
public struct CacheDirectives: Sendable, Hashable {
    /// Never serve a stored response without asking the server first (`no-cache`): a stored response with a
    /// validator makes the request conditional, and a 304 serves it.
    public var noCache = false
    /// Store nothing of this call's response (`no-store`).
    public var noStore = false
    /// Serve a stored response only if it is at most this old (`max-age`); `.zero` always revalidates.
    public var maxAge: Duration?
    /// Serve a stored response up to this long past its freshness (`max-stale`), unless it says
    /// `must-revalidate`.
    public var maxStale: Duration?
    /// Serve a stored response only if it stays fresh for at least this long (`min-fresh`).
    public var minFresh: Duration?
    /// Never send: serve a stored response that the other directives allow, or fail with
    /// ``EndpointError/Kind/notCached`` (`only-if-cached`).
    public var onlyIfCached = false
    /// When the server cannot be reached or answers 500, 502, 503 or 504, serve a stored response up to this
    /// long past its freshness instead (`stale-if-error`, RFC 5861), unless it says `must-revalidate`.
    public var staleIfError: Duration?

    /// No directives: the cache follows the responses' own rules.
    public init() {}

    /// Creates directives.
    public init(
        noCache: Bool = false,
        noStore: Bool = false,
        maxAge: Duration? = nil,
        maxStale: Duration? = nil,
        minFresh: Duration? = nil,
        onlyIfCached: Bool = false,
        staleIfError: Duration? = nil
    ) {
        self.noCache = noCache
        self.noStore = noStore
        self.maxAge = maxAge
        self.maxStale = maxStale
        self.minFresh = minFresh
        self.onlyIfCached = onlyIfCached
        self.staleIfError = staleIfError
    }

    /// Always ask the server, conditionally when something is stored: `no-cache`.
    public static let revalidate = CacheDirectives(noCache: true)
    /// Only what is stored, never the network: `only-if-cached`.
    public static let onlyIfCached = CacheDirectives(onlyIfCached: true)
}
