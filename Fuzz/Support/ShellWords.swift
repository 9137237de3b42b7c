/// Splits a command line the way bash splits the commands `CURLCommand` prints: words separated by spaces,
/// single-quoted text taken literally, a backslash outside quotes escaping the next character, and a
/// process substitution `@<(printf '…')` kept as one word. `nil` for a line bash would not accept (an
/// unterminated quote) or any other construct, which a printed command must not contain.
func shellWords(_ line: String) -> [String]? {
    var words: [String] = []
    var current = ""
    var inWord = false
    var scalars = Array(line.unicodeScalars)[...]
    while let scalar = scalars.popFirst() {
        switch scalar {
        case " ":
            if inWord { words.append(current) }
            current = ""
            inWord = false
        case "'":
            inWord = true
            guard let end = scalars.firstIndex(of: "'") else { return nil }
            current.unicodeScalars.append(contentsOf: scalars[scalars.startIndex..<end])
            scalars = scalars[(end + 1)...]
        case "\\":
            guard let next = scalars.popFirst() else { return nil }
            inWord = true
            current.unicodeScalars.append(next)
        case "@" where !inWord && scalars.starts(with: "<(printf '".unicodeScalars):
            scalars = scalars.dropFirst("<(printf '".unicodeScalars.count)
            guard let end = scalars.firstIndex(of: "'"), scalars[(end + 1)...].first == ")" else { return nil }
            words.append("@<(printf " + String(String.UnicodeScalarView(scalars[scalars.startIndex..<end])) + ")")
            scalars = scalars[(end + 2)...]
        case "\"", "$", "`", "!", "*", "?", "[", "]", "{", "}", "(", ")", "<", ">", "|", "&", ";", "#", "~",
            "\n", "\r", "\t":
            return nil  // would be interpreted by the shell outside quotes
        default:
            inWord = true
            current.unicodeScalars.append(scalar)
        }
    }
    if inWord { words.append(current) }
    return words
}

/// The bytes `printf FORMAT` prints for the formats `CURLCommand` writes: literal characters and `\ooo`.
func printfBytes(_ format: String) -> [UInt8]? {
    var bytes: [UInt8] = []
    var utf8 = Array(format.utf8)[...]
    while let byte = utf8.popFirst() {
        if byte == UInt8(ascii: "%") { return nil }  // a directive: never written unescaped
        guard byte == UInt8(ascii: "\\") else {
            bytes.append(byte)
            continue
        }
        let digits = utf8.prefix(3)
        guard digits.count == 3, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "7")).contains($0) }) else {
            return nil
        }
        let value = digits.reduce(0) { $0 * 8 + Int($1 - UInt8(ascii: "0")) }
        guard value <= 255 else { return nil }
        bytes.append(UInt8(value))
        utf8 = utf8.dropFirst(3)
    }
    return bytes
}
