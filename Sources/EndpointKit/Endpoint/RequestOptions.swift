/// A key for a per-endpoint option, with the value used when an endpoint sets none.
///
///     enum Traced: RequestOptionKey { static let defaultValue = true }
///     var endpoint = Endpoint<EndpointKinds.Public, Item>.item(42)
///     endpoint.options[Traced.self] = false
///     // in your middleware: if context.options[Traced.self] { trace(request) }
public protocol RequestOptionKey {
    /// The option's type.
    associatedtype Value: Sendable
    /// The value when the endpoint sets none.
    static var defaultValue: Value { get }
}

/// Per-endpoint settings that middleware reads: switch a step off or tune it for one call.
///
///     var endpoint = Endpoint<EndpointKinds.Private, Item>.createItem(NewItem(name: "Tea"))
///     endpoint.options.retryPolicy = .never      // never retried, whatever the client's policy
///     endpoint.options.isThrottled = false       // skips the concurrency limit
///     endpoint.options.isRateLimited = false     // skips the rate limit
public struct RequestOptions: Sendable {
    private var values: [ObjectIdentifier: any Sendable] = [:]

    /// Creates options with every key at its default.
    public init() {}

    /// The value for `key`, or its default.
    public subscript<Key: RequestOptionKey>(key: Key.Type) -> Key.Value {
        get {
            // Most calls set no option: no lookup, and no cast of a missing value.
            guard !values.isEmpty, let value = values[ObjectIdentifier(key)] else { return Key.defaultValue }
            return value as? Key.Value ?? Key.defaultValue
        }
        set { values[ObjectIdentifier(key)] = newValue }
    }
}

extension RequestOptions {
    private enum RetryPolicyKey: RequestOptionKey {
        static let defaultValue: RetryPolicy? = nil
    }

    private enum ThrottledKey: RequestOptionKey {
        static let defaultValue = true
    }

    private enum RateLimitedKey: RequestOptionKey {
        static let defaultValue = true
    }

    private enum LoggedKey: RequestOptionKey {
        static let defaultValue = true
    }

    private enum IdempotencyKeyedKey: RequestOptionKey {
        static let defaultValue = true
    }

    private enum ValidatedKey: RequestOptionKey {
        static let defaultValue = true
    }

    private enum CachedKey: RequestOptionKey {
        static let defaultValue = true
    }

    private enum CacheDirectivesKey: RequestOptionKey {
        static let defaultValue = CacheDirectives()
    }

    private enum PageWalkKey: RequestOptionKey {
        static let defaultValue: PageWalk? = nil
    }

    private enum OutboxGroupKey: RequestOptionKey {
        static let defaultValue: String? = nil
    }

    /// The ``Outbox`` group a write of this endpoint is queued in when the caller names none (see
    /// ``Outbox/enqueue(_:group:)``), e.g. `"items/42"` so that writes to one item keep their order while
    /// other items' go in parallel; `nil` (the default) for ``OutboxWrite/defaultGroup``.
    public var outboxGroup: String? {
        get { self[OutboxGroupKey.self] }
        set { self[OutboxGroupKey.self] = newValue }
    }

    /// The walk of a paged list this call fetches a page of, set by ``Pages``; `nil` for any other call.
    public var pageWalk: PageWalk? {
        get { self[PageWalkKey.self] }
        set { self[PageWalkKey.self] = newValue }
    }

    /// The retry policy for this endpoint instead of the ``Retry`` middleware's own, or `nil` for its own.
    public var retryPolicy: RetryPolicy? {
        get { self[RetryPolicyKey.self] }
        set { self[RetryPolicyKey.self] = newValue }
    }

    /// Whether ``Throttle`` counts this request against its limits; `true` unless set.
    public var isThrottled: Bool {
        get { self[ThrottledKey.self] }
        set { self[ThrottledKey.self] = newValue }
    }

    /// Whether ``RateLimiter`` counts this request against its limit; `true` unless set.
    public var isRateLimited: Bool {
        get { self[RateLimitedKey.self] }
        set { self[RateLimitedKey.self] = newValue }
    }

    /// Whether ``IdempotencyKey`` adds its header to this request; `true` unless set.
    public var isIdempotencyKeyed: Bool {
        get { self[IdempotencyKeyedKey.self] }
        set { self[IdempotencyKeyedKey.self] = newValue }
    }

    /// Whether ``ExchangeLogging`` reports this request; `true` unless set.
    public var isLogged: Bool {
        get { self[LoggedKey.self] }
        set { self[LoggedKey.self] = newValue }
    }

    /// Whether the client's validators and its 2xx status check judge this endpoint's response; `true` unless
    /// set. With `false` every status is handed back as a response, e.g. to read a 404 and its body yourself
    /// with ``EndpointClient/exchange(for:using:)``.
    public var isValidated: Bool {
        get { self[ValidatedKey.self] }
        set { self[ValidatedKey.self] = newValue }
    }

    /// Whether the client's ``HTTPCache`` may serve or store this endpoint's responses; `true` unless set. With
    /// `false` the request goes out as it is and its response is not stored (a successful unsafe request still
    /// invalidates what is stored for its URL).
    public var isCached: Bool {
        get { self[CachedKey.self] }
        set { self[CachedKey.self] = newValue }
    }

    /// What this endpoint asks of the client's ``HTTPCache``: revalidate always, accept stale, only stored, …;
    /// none unless set.
    public var cacheDirectives: CacheDirectives {
        get { self[CacheDirectivesKey.self] }
        set { self[CacheDirectivesKey.self] = newValue }
    }
}

extension RequestOptions {
    /// How many options are set under keys that are not EndpointKit's own: what an ``Outbox``, which keeps only
    /// its own on disk, refuses.
    var foreignOptionCount: Int {
        let own: Set<ObjectIdentifier> = [
            ObjectIdentifier(RetryPolicyKey.self), ObjectIdentifier(ThrottledKey.self),
            ObjectIdentifier(LoggedKey.self), ObjectIdentifier(IdempotencyKeyedKey.self),
            ObjectIdentifier(ValidatedKey.self), ObjectIdentifier(CachedKey.self),
            ObjectIdentifier(CacheDirectivesKey.self), ObjectIdentifier(PageWalkKey.self),
            ObjectIdentifier(OutboxGroupKey.self),
        ]
        return values.keys.filter { !own.contains($0) }.count
    }
}
