/// Percent-encoding with explicit, ASCII-only allowed sets.
///
/// Foundation's `CharacterSet.urlQueryAllowed` lets `+`, `&`, `=` and `;` through, and
/// `CharacterSet.alphanumerics` includes non-ASCII letters, so neither can decide what reaches the wire.
enum PercentEncoding {
    /// RFC 3986 unreserved characters: the only ones that mean the same thing everywhere in a URL.
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// Characters left as they are inside one path segment: unreserved plus the sub-delimiters that no
    /// server reads as structure. `/`, `?`, `#`, `%`, `;` and `+` are always encoded.
    static func isSegmentSafe(_ byte: UInt8) -> Bool {
        if isUnreserved(byte) { return true }
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: ","), UInt8(ascii: "="), UInt8(ascii: ":"),
            UInt8(ascii: "@"):
            return true
        default:
            return false
        }
    }

    /// Encodes `string` so that only bytes for which `isAllowed` is true stay literal.
    static func encode(_ string: String, allowing isAllowed: (UInt8) -> Bool) -> String {
        var output = [UInt8]()
        output.reserveCapacity(string.utf8.count)
        for byte in string.utf8 {
            if isAllowed(byte) {
                output.append(byte)
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(hexDigit(byte >> 4))
                output.append(hexDigit(byte & 0x0F))
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Encodes one path segment; a segment that is exactly `.` or `..` is encoded too, so that neither
    /// the client library nor the server can treat it as a dot-segment and move the request.
    static func encodeSegment(_ segment: String) -> String {
        if segment == "." { return "%2E" }
        if segment == ".." { return "%2E%2E" }
        return encode(segment, allowing: isSegmentSafe)
    }

    /// Encodes a query name or value: everything but unreserved characters, so `+`, `&`, `=`, `#`, `;`, `/`
    /// and `?` reach the server as written.
    static func encodeQueryComponent(_ component: String) -> String {
        encode(component, allowing: isUnreserved)
    }

    /// Encodes literal path text written by a developer: `/` separates segments and an existing `%XX`
    /// escape is kept, every other character outside a segment's safe set is encoded.
    static func encodeLiteralPath(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var output = [UInt8]()
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "/") || isSegmentSafe(byte) {
                output.append(byte)
            } else if byte == UInt8(ascii: "%"), index + 2 < bytes.count, isHexDigit(bytes[index + 1]),
                isHexDigit(bytes[index + 2])
            {
                output.append(contentsOf: bytes[index...(index + 2)])
                index += 3
                continue
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(hexDigit(byte >> 4))
                output.append(hexDigit(byte & 0x0F))
            }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
            UInt8(ascii: "A")...UInt8(ascii: "F"):
            return true
        default:
            return false
        }
    }
}
