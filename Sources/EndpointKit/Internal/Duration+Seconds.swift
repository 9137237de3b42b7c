import Foundation

/// Conversions between `Duration` and the `TimeInterval` seconds that settings and URLSession use.
extension Duration {
    /// The duration in seconds, fractions included.
    var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// `seconds` rounded up to the next millisecond, the precision of EndpointKit's deadlines; the caller
    /// checks the value is finite and below ``EndpointClient/longestDeadline``.
    static func roundedUp(seconds: TimeInterval) -> Duration {
        .milliseconds(Int((seconds * 1000).rounded(.up)))
    }
}
