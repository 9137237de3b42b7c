import Foundation

/// A rate limit a server announces with the time it resets, which ``Retry`` waits for when
/// ``RetryPolicy/rateLimitReset`` is set.
///
/// GitHub answers a request over its limit with `403` (or `429`), `x-ratelimit-remaining: 0` and
/// `x-ratelimit-reset: <epoch seconds>`; ``github`` describes that. Other APIs send the seconds left instead of
/// a time (``Format/secondsFromNow``).
///
///     var policy = RetryPolicy(maxRetryAfter: .seconds(90))
///     policy.rateLimitReset = .github
///
/// A reset further away than ``RetryPolicy/maxRetryAfter`` is not waited for: the call fails at once with
/// ``EndpointError/Kind/rateLimited``, whose ``EndpointError/retryAfter`` says how long the server asked for.
public struct RateLimitReset: Sendable {
    /// How the reset header gives the time.
    public enum Format: Sendable {
        /// Seconds since 1970 (Unix time) at which the limit resets.
        case epochSeconds
        /// Seconds from now until the limit resets.
        case secondsFromNow
    }

    /// Statuses that may carry the limit, e.g. `[403, 429]`.
    public var statuses: Set<Int>
    /// The header that says how many requests are left; the limit applies when it is `0`.
    public var remainingHeader: HTTPHeaders.Name
    /// The header that says when the limit resets.
    public var resetHeader: HTTPHeaders.Name
    /// How ``resetHeader`` gives the time.
    public var format: Format

    /// Describes a rate limit header pair.
    public init(
        statuses: Set<Int> = [403, 429],
        remainingHeader: HTTPHeaders.Name = "x-ratelimit-remaining",
        resetHeader: HTTPHeaders.Name = "x-ratelimit-reset",
        format: Format = .epochSeconds
    ) {
        self.statuses = statuses
        self.remainingHeader = remainingHeader
        self.resetHeader = resetHeader
        self.format = format
    }

    /// GitHub's: `x-ratelimit-remaining: 0` and `x-ratelimit-reset` in epoch seconds, on a 403 or 429.
    public static let github = RateLimitReset()

    /// How long until the limit `response` announces resets, or `nil` when it announces none (another
    /// status, requests left, or an unreadable time). A time already past waits zero.
    func wait(for response: TransportResponse, now: Date = Date()) -> Duration? {
        guard statuses.contains(response.statusCode),
            response.headers[remainingHeader]?.trimmingCharacters(in: .whitespaces) == "0",
            let text = response.headers[resetHeader]?.trimmingCharacters(in: .whitespaces),
            let value = Double(text), value.isFinite, value >= 0
        else { return nil }
        let seconds =
            switch format {
            case .epochSeconds: value - now.timeIntervalSince1970
            case .secondsFromNow: value
            }
        return Duration.serverWait(seconds: seconds)
    }
}
