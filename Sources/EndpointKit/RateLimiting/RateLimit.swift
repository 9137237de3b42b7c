/// A request rate an upstream allows: at most ``count`` requests in any window of ``period``, up to ``burst`` of
/// them at once.
///
///     let stripe = RateLimit(100, per: .seconds(1))               // evenly spaced, 100 in any second
///     let github = RateLimit(5_000, per: .seconds(3600), burst: 100)
///
/// ``RateLimiter`` keeps it with GCRA (the generic cell rate algorithm): one theoretical arrival time per limit,
/// moved on by one ``interval`` per request. The spacing is worked out so that a whole window never holds more
/// than ``count`` requests, even a window of ``period`` plus ``margin``: a request may reach the server up to
/// ``margin`` after its slot (half of it waking up and sending, half on its way) and the server still counts no
/// more than ``count`` in any ``period``. So the rate kept is `count − burst + 1` requests per `period + margin`:
/// with the defaults (burst 1, margin 50 ms) and a period of one second, 95 % of the limit.
///
/// The margin must cover how much the time from a call's send to its arrival at the server varies: half of it, as the
/// limiter measures it, what its storage's answer and its wake-up took; the other half, the way to the server. Give
/// an upstream across the internet, where a new connection's handshakes take longer, a larger one.
public struct RateLimit: Sendable, Hashable, CustomStringConvertible {
    /// The most requests in any window of ``period``.
    public let count: Int
    /// The window the upstream counts in.
    public let period: Duration
    /// How many requests may go at once after a quiet spell, from 1 (evenly spaced) to ``count``.
    public let burst: Int
    /// How late after its slot a request may still reach the server: a call that would send later than half of
    /// it after its slot takes a new slot instead.
    public let margin: Duration

    /// Creates a limit. A count below 1 is raised to 1, a burst is kept between 1 and the count, a period below
    /// a millisecond is raised to one and a negative margin is zero.
    public init(_ count: Int, per period: Duration, burst: Int = 1, margin: Duration = .milliseconds(50)) {
        self.count = max(1, count)
        self.period = max(period, .milliseconds(1))
        self.burst = min(max(1, burst), self.count)
        self.margin = max(margin, .zero)
    }

    /// The time between two slots when the limit is busy.
    public var interval: Duration { .microseconds(intervalMicroseconds) }

    /// `100 per 1.0 s (burst 1, margin 0.05 s)`.
    public var description: String {
        "\(count) per \(period.readable) (burst \(burst), margin \(margin.readable))"
    }

    /// ``interval`` in microseconds, rounded up: `(period + margin) / (count − burst + 1)`.
    package var intervalMicroseconds: Int64 {
        let window = (period + margin).wholeMicroseconds
        let slots = Int64(count - burst + 1)
        return (window + slots - 1) / slots
    }

    /// How far ahead of its theoretical arrival time a request may still go: `(burst − 1) × interval`.
    package var toleranceMicroseconds: Int64 { Int64(burst - 1) * intervalMicroseconds }
}

extension Duration {
    /// The duration in whole microseconds, rounded down (a negative one towards zero).
    package var wholeMicroseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds.multipliedReportingOverflow(by: 1_000_000).overflow
            ? (seconds < 0 ? .min / 2 : .max / 2) : seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}
