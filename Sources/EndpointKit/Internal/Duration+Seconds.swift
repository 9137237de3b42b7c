import Foundation

/// `Duration`, the one representation of time in EndpointKit, as URLSession's `TimeInterval` seconds and as people
/// read it.
extension Duration {
    /// The duration in seconds, fractions included.
    var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The longest wait EndpointKit keeps (10⁹ s, about 30 years), from a server or a setting: past it the exact
    /// figure no longer matters, and every conversion of a longer one could overflow. A timeout this long or
    /// longer means none.
    static let longestServerWait = Duration.seconds(1_000_000_000)

    /// A wait of `seconds` a server sent, clamped to 0…``longestServerWait``; `nil` when it is not a number.
    static func serverWait(seconds: Double) -> Duration? {
        guard !seconds.isNaN else { return nil }
        let clamped = Swift.min(Swift.max(seconds, 0), longestServerWait.inSeconds)
        return .milliseconds(Int((clamped * 1000).rounded(.up)))
    }

    /// The duration as a person reads it, rounded, with its unit: "250 ms", "2.5 s", "90 s", "2 h 5 min".
    package var readable: String {
        // Rounded to the millisecond first, so that 0.9999996 s reads as "1 s", not "1000 ms".
        let seconds = (inSeconds * 1000).rounded() / 1000
        switch seconds {
        case ..<1:
            return "\(Int(seconds * 1000)) ms"
        case ..<10:
            let tenths = (seconds * 10).rounded() / 10
            return tenths == tenths.rounded() ? "\(Int(tenths)) s" : "\(tenths) s"
        case ..<120:
            return "\(Int(seconds.rounded())) s"
        case ..<7200:
            return "\(Int((seconds / 60).rounded())) min"
        default:
            let minutes = components.seconds / 60
            return minutes % 60 == 0 ? "\(minutes / 60) h" : "\(minutes / 60) h \(minutes % 60) min"
        }
    }
}
