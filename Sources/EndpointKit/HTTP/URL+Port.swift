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
        guard let written = writtenPort, !written.isEmpty else { return nil }
        guard written.utf8.count <= 5, written.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let port = Int(written), (1...65_535).contains(port)
        else {
            return "the URL's port \(written.prefix(24)) is outside 1–65535"
        }
        return nil
    }

    /// The port as written: what follows the host's last colon (past the `]` of an IPv6 literal), or `nil` when
    /// the authority has no colon there. An empty port means the scheme's default (RFC 3986 §3.2.3).
    private var writtenPort: Substring? {
        let string = absoluteString
        guard let separator = string.range(of: "://") else { return nil }
        let authority = string[separator.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostAndPort = authority.lastIndex(of: "@").map { authority[authority.index(after: $0)...] } ?? authority
        let afterHost =
            hostAndPort.lastIndex(of: "]").map { hostAndPort[hostAndPort.index(after: $0)...] } ?? hostAndPort
        guard let colon = afterHost.lastIndex(of: ":") else { return nil }
        return afterHost[afterHost.index(after: colon)...]
    }
}
