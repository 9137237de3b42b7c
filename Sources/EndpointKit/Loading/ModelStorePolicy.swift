/// How long a ``ModelLoader`` trusts and keeps what it loaded (TanStack Query's `staleTime` and `gcTime`).
///
///     let loader = ModelLoader<Item>(client: client, policy: ModelStorePolicy(freshness: .seconds(30))) { .item($0) }
public struct ModelStorePolicy: Sendable, Hashable {
    /// How long a loaded value is served with no request: 5 seconds unless set. An older one is still served
    /// to observers at once, and refreshed with an ordinary `GET` through the client's ``HTTPCache`` (a response
    /// the server still declares fresh costs no request; a 304 renews the value's time and changes nothing else).
    public var freshness: Duration
    /// How long an entry nobody observes is kept after its last use: 5 minutes unless set. Measured on the
    /// client's clock by a sweep the store schedules, so it holds while the loader is idle.
    public var retention: Duration
    /// The most entries kept; past it, unobserved entries go, least recently used first. 1,000 unless set.
    public var maximumCount: Int

    /// Creates a policy.
    public init(freshness: Duration = .seconds(5), retention: Duration = .seconds(300), maximumCount: Int = 1_000) {
        self.freshness = freshness
        self.retention = retention
        self.maximumCount = max(1, maximumCount)
    }
}
