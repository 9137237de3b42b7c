extension HTTPHeaders {
    /// Why `name` and `value` cannot be sent, or `nil` when they can.
    ///
    /// Linux URLSession writes header names and `allHTTPHeaderFields` values to the wire unchecked, so a CR or
    /// LF there injects a header or a whole second request; the check happens here, before a `URLRequest` exists.
    static func problem(name: String, value: String) -> String? {
        guard HTTPToken.isValid(name) else {
            return "header name \(quoted(name)) is not an HTTP token"
        }
        // Byte by byte, in place: every byte of a non-ASCII character is 0x80 or above.
        var value = value
        return value.withUTF8 { bytes in
            for byte in bytes {
                switch byte {
                case 0x0D, 0x0A, 0x00:
                    return "the value of header \(name) contains a line break or NUL"
                case 0x09, 0x20...0x7E:
                    continue
                case 0x80...:
                    return "the value of header \(name) contains non-ASCII text; encode it first (e.g. RFC 8187)"
                default:
                    return "the value of header \(name) contains a control character"
                }
            }
            return nil
        }
    }

    /// Checks every field, including that none is one the transport manages.
    func validate() -> String? {
        for field in self {
            if let problem = Self.problem(name: field.name, value: field.value) { return problem }
        }
        return nil
    }

    /// Why the field `name: value` cannot be sent, a name the transport manages included, or `nil` when it can.
    static func problem(name: Name, value: String) -> String? {
        if name.isManagedByTransport { return "header \(name) is set by the transport and cannot be overridden" }
        return problem(name: name.rawValue, value: value)
    }

    private static func quoted(_ name: String) -> String {
        "\""
            + name.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 ? String($0) : $0.escaped(asASCII: true) }
            .joined() + "\""
    }
}
