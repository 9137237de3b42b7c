import Foundation

extension URL {
    /// Why no connection can be made to this URL's port, or `nil` when it names none (the scheme's default) or
    /// one in 1–65535.
    ///
    /// Foundation's `URL` accepts any number of digits as a port: `70000` is kept as `port == 70000`, which
    /// AsyncHTTPClient traps on for an IP literal and truncates to 4464 for a host name, and a port too long
    /// for an `Int` reads as `nil`, which a transport takes for the default port. So the port is read as written
    /// in the authority, and anything but 1–65535 is refused before a transport sees it.
    var portProblem: String? {
        var string = absoluteString
        return string.withUTF8 { bytes -> String? in
            guard let written = Self.writtenPort(in: bytes), !written.isEmpty else { return nil }
            if written.count <= 5, written.allSatisfy({ (0x30...0x39).contains($0) }) {
                let port = written.reduce(0) { $0 * 10 + Int($1 - 0x30) }
                if (1...65_535).contains(port) { return nil }
            }
            return "the URL's port \(String(decoding: written.prefix(24), as: UTF8.self)) is outside 1–65535"
        }
    }

    /// The port as written in `bytes`, a URL's text: what follows the host's last colon (past the `]` of an IPv6
    /// literal), or `nil` when the authority has no colon there. An empty port means the scheme's default (RFC 3986
    /// §3.2.3). Read from the bytes in place, with no copy and no Foundation string search: it runs for every hop.
    private static func writtenPort(in bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>.SubSequence? {
        // The authority starts after "://" and ends at the path, query or fragment.
        var start = 0
        while start + 2 < bytes.count, !(bytes[start] == 0x3A && bytes[start + 1] == 0x2F && bytes[start + 2] == 0x2F) {
            start += 1
        }
        guard start + 2 < bytes.count else { return nil }
        var colon: Int?
        var index = start + 3
        scan: while index < bytes.count {
            switch bytes[index] {
            case 0x2F, 0x3F, 0x23: break scan  // "/", "?", "#"
            case 0x40, 0x5D: colon = nil  // "@" ends the user information; "]" an IPv6 literal
            case 0x3A: colon = index
            default: break
            }
            index += 1
        }
        guard let colon else { return nil }
        return bytes[(colon + 1)..<index]
    }
}
