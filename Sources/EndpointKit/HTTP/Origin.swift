import Foundation

/// Scheme, host and port: what decides whether a redirect leaves the server a credential was meant for.
struct Origin: Hashable {
    var scheme: String?
    var host: String?
    var port: Int?

    init(_ url: URL) {
        scheme = url.scheme?.lowercased()
        host = url.host?.lowercased()
        port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
    }

    /// `scheme://host:port`, a key for per-origin state.
    var key: String { "\(scheme ?? "")://\(host ?? ""):\(port.map(String.init) ?? "")" }
}
