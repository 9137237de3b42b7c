/// HTTP's optional whitespace (spaces and tabs, RFC 9110 §5.6.3) around field values and their parts, removed
/// without Foundation: `trimmingCharacters(in:)` goes through `NSString` on Linux, a measurable share of a cache
/// hit.
extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        let bytes = Array(utf8)
        guard let first = bytes.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }),
            let last = bytes.lastIndex(where: { $0 != 0x20 && $0 != 0x09 })
        else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}
