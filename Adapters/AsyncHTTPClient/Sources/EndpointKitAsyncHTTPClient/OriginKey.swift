#if AsyncHTTPClient
import Foundation

/// Scheme, host and port of a request's URL: the key under which ``AdmissionState`` counts calls sent at once, as
/// AsyncHTTPClient's pool keys its connections. Three small values, so that no string is built for each call.
struct OriginKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    var scheme: String
    var host: String
    var port: Int

    init(scheme: String, host: String, port: Int) {
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    /// The origin of `url`, its scheme and host lowercased and its port the scheme's default when it names none.
    init(_ url: URL) {
        scheme = Self.lowercased(url.scheme ?? "")
        host = Self.lowercased(url.host(percentEncoded: true) ?? "")
        port = url.port ?? (scheme == "https" ? 443 : 80)
    }

    var description: String { "\(scheme)://\(host):\(port)" }

    static func < (lhs: OriginKey, rhs: OriginKey) -> Bool {
        (lhs.scheme, lhs.host, lhs.port) < (rhs.scheme, rhs.host, rhs.port)
    }

    /// `text` lowercased, without a copy when it has no uppercase letter (the common case).
    private static func lowercased(_ text: String) -> String {
        for byte in text.utf8 where byte &- 65 < 26 { return text.lowercased() }
        return text
    }
}
#endif
