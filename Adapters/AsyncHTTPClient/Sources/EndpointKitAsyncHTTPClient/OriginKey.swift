#if AsyncHTTPClient
import Foundation

/// Scheme, host and port of a request's URL: the key under which ``AdmissionState`` counts calls sent at once, as
/// AsyncHTTPClient's pool keys its connections. Three small values, so that no string is built for each call.
struct OriginKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    let scheme: String
    let host: String
    let port: Int
    /// The three hashed once: the admission looks a key up twice a call, and hashing two strings costs more.
    private let hashed: Int

    init(scheme: String, host: String, port: Int) {
        self.scheme = scheme
        self.host = host
        self.port = port
        var hasher = Hasher()
        hasher.combine(scheme)
        hasher.combine(host)
        hasher.combine(port)
        hashed = hasher.finalize()
    }

    /// The origin of `url`, its scheme and host lowercased and its port the scheme's default when it names none.
    init(_ url: URL) {
        let scheme = Self.lowercased(url.scheme ?? "")
        self.init(
            scheme: scheme,
            host: Self.lowercased(url.host(percentEncoded: true) ?? ""),
            port: url.port ?? (scheme == "https" ? 443 : 80)
        )
    }

    static func == (lhs: OriginKey, rhs: OriginKey) -> Bool {
        lhs.hashed == rhs.hashed && lhs.port == rhs.port && lhs.scheme == rhs.scheme && lhs.host == rhs.host
    }

    func hash(into hasher: inout Hasher) { hasher.combine(hashed) }

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

/// The origin of the last URL asked about, kept with the text its URLs start with: calls to one origin in a row
/// (the usual case) compare a prefix instead of reading the URL's scheme, host and port again (2,000
/// instructions a call).
struct LastOrigin: Sendable {
    private var prefix: String?
    private var key: OriginKey?

    /// The origin of `url`: the last one when `url` starts with the same scheme and authority, to the character.
    mutating func key(for url: URL) -> OriginKey {
        let text = url.absoluteString
        if let prefix, let key, text.hasPrefix(prefix) { return key }
        let key = OriginKey(url)
        self.key = key
        prefix = Self.schemeAndAuthority(of: text)
        return key
    }

    /// `text` up to and including the character that ends its authority (`/`, `?` or `#`), or `nil` when it has
    /// none: two URLs that start with it have the same scheme, user info, host and port, as written.
    private static func schemeAndAuthority(of text: String) -> String? {
        guard let separator = text.range(of: "://") else { return nil }
        guard let end = text[separator.upperBound...].firstIndex(where: { "/?#".contains($0) }) else { return nil }
        return String(text[...end])
    }
}
#endif
