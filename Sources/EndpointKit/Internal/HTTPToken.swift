/// RFC 9110 §5.6.2 tokens, the grammar of header names and methods.
enum HTTPToken {
    /// Whether `string` is a non-empty token: visible ASCII without separators.
    static func isValid(_ string: String) -> Bool {
        // Read in place: this runs for every header name sent.
        var string = string
        return string.withUTF8 { bytes in !bytes.isEmpty && bytes.allSatisfy(isTokenCharacter) }
    }

    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
