import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Keeps requests to a ``RateLimit``, counted under a key in a ``RateLimitStorage``: in this process, or across a
/// fleet when the storage is shared.
///
///     let limiter = RateLimiter(RateLimit(100, per: .seconds(1)), key: "stripe")
///     let client = EndpointClient(environment: env, middleware: [Retry(), limiter])
///
/// Each call reserves its slot (one trip to the storage), waits for it on the client's clock (or the one given), and
/// sends. A call whose slot is more than `maxWait` away fails at once with ``EndpointError/Kind/rateLimited`` and
/// reserves nothing. A call that wakes more than half the limit's ``RateLimit/margin`` after its slot (a busy
/// machine, a slow storage) takes a new slot rather than send late, so that the upstream never counts more than the
/// limit.
///
/// When the upstream answers `429` or `503` with `Retry-After`, or announces that its limit is spent (``reset``,
/// GitHub's `x-ratelimit-reset` by default), every caller of the key waits until then, in every instance that shares
/// the storage; the answer itself is returned as it is (``Retry`` may send it again, after the wait). Put the limiter
/// inside ``Retry`` so that every try is counted. An endpoint skips it with `options.isRateLimited = false`.
public struct RateLimiter: Middleware {
    /// The limit kept.
    public let limit: RateLimit
    /// The name the limit is counted under: an upstream, an account, a token's identifier of your own. Never a secret:
    /// a storage may keep it, and errors show it.
    public let key: String
    /// Where the limit is counted.
    public let storage: any RateLimitStorage
    /// The longest a call waits for its slot; a call whose slot is further away fails at once.
    public let maxWait: Duration
    /// A limit the upstream announces with the time it resets, honoured like a `Retry-After`, or `nil`.
    public let reset: RateLimitReset?
    private let clock: (any Clock<Duration>)?
    private let counts = Locked(Counts())

    /// What the step has done so far, for dashboards.
    struct Counts: Sendable {
        var sent = 0
        var retaken = 0
    }

    /// The calls this step has let through so far: a metric.
    public var sentCount: Int { counts.withLock { $0.sent } }

    /// The slots given up so far because a call reached its slot more than half the margin late: a metric. Each is a
    /// slot of the limit unused; many mean that the margin is too small for this machine or this storage.
    public var retakenSlots: Int { counts.withLock { $0.retaken } }

    /// Creates the step.
    ///
    /// - Parameters:
    ///   - limit: The rate to keep.
    ///   - key: The name the limit is counted under; every instance that shares `storage` and this key must use the
    ///     same `limit`.
    ///   - storage: Where the limit is counted; by default a storage of this step's own.
    ///   - maxWait: The longest a call waits for its slot (60 s by default).
    ///   - reset: A limit announced by a reset time (GitHub's headers by default), or `nil`.
    ///   - clock: The clock slots are waited for on, or `nil` for the client's; a ``MemoryRateLimitStorage``
    ///     measures its slots on its own clock, so give both the same one.
    public init(
        _ limit: RateLimit,
        key: String,
        storage: any RateLimitStorage = MemoryRateLimitStorage(),
        maxWait: Duration = .seconds(60),
        reset: RateLimitReset? = .github,
        clock: (any Clock<Duration>)? = nil
    ) {
        self.limit = limit
        self.key = key
        self.storage = storage
        self.maxWait = max(maxWait, .zero)
        self.reset = reset
        self.clock = clock
    }

    /// The most slots in a row a call may reach late before it fails rather than take another.
    static let maximumLateSlots = 8

    /// Waits for a slot, sends `request`, and shares a wait the upstream asks for.
    public func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext) async throws
        -> TransportResponse
    {
        guard context.options.isRateLimited else { return try await next(request, context: context) }
        let clock: any Clock<Duration> = self.clock ?? context.clock
        try await waitForSlot(on: clock)
        let response = try await next(request, context: context)
        if let wait = upstreamWait(response) {
            // The answer is the caller's either way: a pause that cannot be shared still holds here, and the
            // storage's own error is no reason to lose the response.
            try? await storage.pause(key, for: wait)
        }
        return response
    }

    /// Reserves a slot and waits for it, again while the slot was reached late or the key is paused.
    private func waitForSlot(on clock: some Clock<Duration>) async throws {
        var lateSlots = 0
        while true {
            // A pause this instance knows of is waited out before a slot is taken: a slot inside it would be lost.
            if let paused = storage.pauseRemaining(key) {
                guard paused <= maxWait else { throw refusal(paused) }
                try await clock.sleep(for: paused)
                continue
            }
            let (wait, early): (Duration, Duration)
            switch try await storage.reserve(key, limit: limit, maxWait: maxWait) {
            case .refused(let nextSlotIn): throw refusal(nextSlotIn)
            case .send(let after, let sooner): (wait, early) = (after, sooner)
            }
            let answered = clock.now
            if wait > .zero { try await clock.sleep(for: wait) }
            let late = answered.duration(to: clock.now) - max(wait, .zero) + early
            // Told of a pause while it waited: the slot is given up, and the loop waits the pause out.
            if storage.pauseRemaining(key) != nil { continue }
            guard late > limit.margin / 2 else {
                counts.withLock { $0.sent += 1 }
                return
            }
            lateSlots += 1
            counts.withLock { $0.retaken += 1 }
            guard lateSlots < Self.maximumLateSlots else {
                throw EndpointError(
                    .rateLimited,
                    "the rate limit \(key) (\(limit)) could not be kept: \(lateSlots) slots in a row were reached "
                        + "more than half its margin late (\(late.readable)); the machine or the storage is too slow "
                        + "for the margin: raise it",
                    mayHaveBeenSent: false
                )
            }
        }
    }

    /// The error of a call whose slot is further than ``maxWait``.
    private func refusal(_ nextSlotIn: Duration) -> EndpointError {
        var error = EndpointError(
            .rateLimited,
            "the rate limit \(key) (\(limit)) has no slot within \(maxWait.readable) (the next is in "
                + "\(nextSlotIn.readable)); nothing was sent",
            mayHaveBeenSent: false
        )
        error.retryAfter = nextSlotIn
        return error
    }

    /// How long the upstream asks every caller to wait, or `nil`.
    private func upstreamWait(_ response: TransportResponse) -> Duration? {
        if let wait = reset?.wait(for: response) { return wait }
        guard response.statusCode == 429 || response.statusCode == 503 else { return nil }
        return RetryPolicy.retryAfter(response.headers[.retryAfter])
    }
}
