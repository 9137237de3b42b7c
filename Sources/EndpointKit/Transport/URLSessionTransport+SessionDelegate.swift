import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// The session-level delegate: the only place Linux URLSession asks about redirects.
    final class SessionDelegate: NSObject, URLSessionTaskDelegate, Sendable {
        /// Headers that carry credentials and never follow a redirect to another origin.
        static let credentialHeaders: [String] = ["Authorization", "Proxy-Authorization", "Cookie"]

        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest,
            completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(Self.redirect(from: task.currentRequest ?? task.originalRequest, to: request))
        }

        /// The request to follow a redirect with, or `nil` to stop and hand the redirect response back.
        ///
        /// A downgrade from https to http is not followed. Credentials are dropped when the scheme, host or
        /// port changes.
        static func redirect(from previous: URLRequest?, to next: URLRequest) -> URLRequest? {
            guard let from = previous?.url, let to = next.url else { return nil }
            let fromScheme = from.scheme?.lowercased()
            let toScheme = to.scheme?.lowercased()
            if fromScheme == "https", toScheme != "https" { return nil }
            guard toScheme == "http" || toScheme == "https" else { return nil }
            guard Origin(from) != Origin(to) else { return next }
            var stripped = next
            for name in credentialHeaders { stripped.setValue(nil, forHTTPHeaderField: name) }
            return stripped
        }
    }

    /// Scheme, host and port: what decides whether a redirect leaves the server a credential was meant for.
    struct Origin: Equatable {
        var scheme: String?
        var host: String?
        var port: Int?

        init(_ url: URL) {
            scheme = url.scheme?.lowercased()
            host = url.host?.lowercased()
            port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
        }
    }
}
