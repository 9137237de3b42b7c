import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// When and how often ``Retry`` sends a request again.
///
/// The defaults: up to 3 attempts, a 0.5 s first delay doubling each time up to 30 s, each delay shortened by
/// a random amount up to half of it (jitter, so many clients do not retry in step; with these defaults a delay
/// is never shorter than the one before until ``maxDelay`` caps them, and capped delays vary between half of
/// it and all of it), a `Retry-After` of up to 60 s honoured in place of the computed delay, and only idempotent methods
/// retried, on timeouts, transient transport failures or statuses 408, 429, 502, 503 and 504.
///
///     let client = EndpointClient(environment: env, middleware: [Retry(RetryPolicy(maxAttempts: 5))])
///     var endpoint = Endpoint<EndpointKinds.Private, Item>.createItem(NewItem(name: "Tea"))
///     endpoint.options.retryPolicy = .never
public struct RetryPolicy: Sendable {
    /// How many times a request is sent at most, the first time included; 1 means never retried.
    public var maxAttempts: Int
    /// The nominal delay before the first retry.
    public var baseDelay: Duration
    /// What each following nominal delay is multiplied by.
    public var multiplier: Double
    /// The longest nominal delay.
    public var maxDelay: Duration
    /// The largest fraction, 0 to 1, that jitter takes off a nominal delay.
    public var jitter: Double
    /// Response statuses worth retrying.
    public var retryableStatuses: Set<Int>
    /// Whether `POST`, `PATCH` and other non-idempotent methods are retried too, even without an
    /// `Idempotency-Key` header; those with one (see ``IdempotencyKey``) are retried either way.
    public var retriesNonIdempotentMethods: Bool
    /// The longest wait a server may ask for, by `Retry-After` or a rate limit's reset time; a response asking
    /// for longer fails the call at once with ``EndpointError/Kind/rateLimited`` instead of sleeping.
    public var maxRetryAfter: Duration
    /// A rate limit announced by a reset time (as GitHub does) that is waited for like a `Retry-After`, or `nil`
    /// for none.
    public var rateLimitReset: RateLimitReset?

    /// Creates a policy; every parameter has the documented default.
    public init(
        maxAttempts: Int = 3,
        baseDelay: Duration = .milliseconds(500),
        multiplier: Double = 2,
        maxDelay: Duration = .seconds(30),
        jitter: Double = 0.5,
        retryableStatuses: Set<Int> = [408, 429, 502, 503, 504],
        retriesNonIdempotentMethods: Bool = false,
        maxRetryAfter: Duration = .seconds(60),
        rateLimitReset: RateLimitReset? = nil
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.multiplier = max(1, multiplier)
        self.maxDelay = maxDelay
        self.jitter = min(max(jitter, 0), 1)
        self.retryableStatuses = retryableStatuses
        self.retriesNonIdempotentMethods = retriesNonIdempotentMethods
        self.maxRetryAfter = maxRetryAfter
        self.rateLimitReset = rateLimitReset
    }

    /// Never retries.
    public static let never = RetryPolicy(maxAttempts: 1)

    /// The nominal delay after attempt `attempt` (from 1), before jitter.
    public func nominalDelay(afterAttempt attempt: Int) -> Duration {
        // Computed in seconds and capped before it becomes a Duration: a large attempt number overflows the
        // power to infinity, which a Duration cannot hold.
        let delay = baseDelay.inSeconds * pow(multiplier, Double(max(0, attempt - 1)))
        guard delay.isFinite, delay < maxDelay.inSeconds else { return maxDelay }
        return .seconds(max(0, delay))
    }

    /// Whether `request` may be retried at all: an idempotent method, or an `Idempotency-Key` header.
    func allowsRetry(of request: TransportRequest) -> Bool {
        retriesNonIdempotentMethods || request.method.isIdempotent
            || request.headers.contains(.idempotencyKey)
    }

    /// Whether a failure is worth retrying: a timeout or a transient transport failure, never a cancellation
    /// or a request that can never succeed. Transport-neutral: the transport says what is transient.
    static func isRetryable(_ error: any Error) -> Bool {
        guard let error = error as? EndpointError else { return false }
        return error.kind == .timedOut || (error.kind == .transportFailed && error.isTransient)
    }

    /// The wait a `Retry-After` value asks for: delay-seconds or an HTTP-date; `nil` when absent or unreadable.
    ///
    /// Whatever the server sends, the wait is at most ``Duration/longestServerWait``: delay-seconds past `Int`
    /// (`9223372036854775807`, or more digits than `Int` holds) and dates thousands of years ahead included.
    static func retryAfter(_ value: String?, now: Date = Date()) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.isASCIIDigits {
            // Too many digits for an Int is a very long wait, not an unreadable one.
            return Duration.serverWait(seconds: Double(value) ?? .infinity)
        }
        guard let date = HTTPDate.parse(value) else { return nil }
        return Duration.serverWait(seconds: date.timeIntervalSince(now))
    }
}
