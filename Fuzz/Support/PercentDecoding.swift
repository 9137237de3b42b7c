/// Percent-decodes `text` strictly: `nil` when a `%` is not followed by two hex digits or the bytes are not
/// UTF-8. The harness's own decoder, independent of the encoder it checks.
func percentDecoded(_ text: Substring) -> String? {
    var bytes: [UInt8] = []
    var utf8 = Array(text.utf8)[...]
    while let byte = utf8.popFirst() {
        guard byte == UInt8(ascii: "%") else {
            bytes.append(byte)
            continue
        }
        guard utf8.count >= 2, let high = hexValue(utf8.removeFirst()), let low = hexValue(utf8.removeFirst())
        else { return nil }
        bytes.append(high << 4 | low)
    }
    return String(validating: bytes, as: UTF8.self)
}

private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}

/// RFC 3986 unreserved characters: the only ones EndpointKit leaves literal in a query component.
func isUnreserved(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
        UInt8(ascii: "~"):
        true
    default: false
    }
}
