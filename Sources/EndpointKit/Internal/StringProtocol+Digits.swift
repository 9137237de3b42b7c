/// The numbers servers send as text (delay-seconds, byte offsets, an event stream's `retry`) are one or more ASCII
/// digits, never a sign, a space or other numerals that `Int(_:)` would take.
extension StringProtocol {
    /// Whether the text is one or more ASCII digits.
    var isASCIIDigits: Bool {
        !isEmpty && utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }
}
