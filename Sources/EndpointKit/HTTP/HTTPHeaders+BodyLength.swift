import Foundation

extension HTTPHeaders {
    /// The length of the body a response head announces: the one rule ``URLSessionTransport``, the
    /// AsyncHTTPClient adapter and downloads all use.
    ///
    /// 0 for a response that has no body whatever its headers say (to `HEAD`, and 1xx, 204 and 304); the
    /// `Content-Length` when no content encoding inflates the body on the way (the reader gets more bytes than a
    /// compressed body's length says); `nil` when the head does not say, or says something that is not a length
    /// (a sign, a space inside, a number past `Int64`).
    ///
    /// - Parameters:
    ///   - statusCode: The response's status.
    ///   - isHead: Whether the request was a `HEAD`.
    /// - Returns: The body's length in bytes, or `nil` when it is not known in advance.
    public func announcedBodyLength(statusCode: Int, isHead: Bool) -> Int64? {
        if isHead || statusCode == 204 || statusCode == 304 || (100..<200).contains(statusCode) { return 0 }
        // One pass over the fields, byte by byte: this runs for every response.
        var length: Int64?
        for field in self {
            // Names of another length than the two sought are passed over without a comparison.
            switch field.name.rawValue.utf8.count {
            case 14 where field.name == .contentLength:
                if length == nil { length = Self.decimal(field.value) }
            case 16 where field.name == .contentEncoding:
                if !Self.isIdentity(field.value) { return nil }
            default:
                continue
            }
        }
        return length
    }

    /// Digits with optional spaces or tabs around them, as a length; `nil` for anything else or past `Int64`.
    private static func decimal(_ text: String) -> Int64? {
        var value: Int64 = 0
        var digits = 0
        var trailing = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"):
                if digits > 0 { trailing = true }
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                guard !trailing else { return nil }
                let (times, overflow) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
                guard !overflow, !overflow2 else { return nil }
                value = sum
                digits += 1
            default:
                return nil
            }
        }
        return digits > 0 ? value : nil
    }

    /// Whether a `Content-Encoding` value names no coding but `identity` (an empty list included).
    private static func isIdentity(_ value: String) -> Bool {
        for coding in value.split(separator: ",") {
            let trimmed = coding.utf8.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            let name = trimmed.reversed().drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }.reversed()
            guard name.count == 8, zip(name, "identity".utf8).allSatisfy({ $0 | 0x20 == $1 }) else { return false }
        }
        return true
    }
}
