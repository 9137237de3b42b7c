import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How a client follows redirects (301, 302, 303, 307, 308).
///
/// EndpointKit follows redirects itself instead of leaving them to URLSession, which on Linux forwards
/// `Authorization` to any host, downgrades https to http, and re-sends 307/308 requests with an empty body.
/// The rules:
/// - at most ``maxRedirects`` hops, then ``EndpointError/Kind/tooManyRedirects``;
/// - only to `http` and `https`, and never from `https` to `http`: ``EndpointError/Kind/redirectRefused``;
/// - when the scheme, host or port changes, `Authorization`, `Proxy-Authorization`, `Cookie` and every name
///   in ``sensitiveHeaders`` are removed;
/// - 303 (and 301/302 after a `POST`) continues as a `GET` without the body and its `Content-*` headers;
/// - 307 and 308 (and 301/302 after other methods) repeat the method with the original body; a stream body,
///   which cannot be read twice, is refused.
///
///     EndpointClient(environment: env, redirectPolicy: .never)          // hand 3xx responses back
///     EndpointClient(environment: env, redirectPolicy: RedirectPolicy(maxRedirects: 3, sensitiveHeaders: ["X-Api-Key"]))
public struct RedirectPolicy: Sendable {
    /// Whether redirects are followed at all; when `false`, a 3xx is the response.
    public var followsRedirects: Bool
    /// The most hops followed for one request.
    public var maxRedirects: Int
    /// Header names removed, besides the built-in credential headers, when a redirect leaves the origin.
    public var sensitiveHeaders: Set<HTTPHeaders.Name>

    /// Creates a policy.
    public init(followsRedirects: Bool = true, maxRedirects: Int = 10, sensitiveHeaders: Set<HTTPHeaders.Name> = []) {
        self.followsRedirects = followsRedirects
        self.maxRedirects = max(0, maxRedirects)
        self.sensitiveHeaders = sensitiveHeaders
    }

    /// Follows up to 10 redirects by the rules above.
    public static let `default` = RedirectPolicy()

    /// Follows none: a 3xx response is handed back (and fails the status check of ``EndpointClient/response(for:using:)``).
    public static let never = RedirectPolicy(followsRedirects: false)

    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]
    static let credentialHeaders: [HTTPHeaders.Name] = [.authorization, .proxyAuthorization, .cookie]

    /// The request for the next hop after `response`, or `nil` when `response` is not a redirect to follow.
    func nextRequest(after response: HTTPResponse, to request: TransportRequest) throws(EndpointError)
        -> TransportRequest?
    {
        guard followsRedirects, Self.redirectStatuses.contains(response.statusCode),
            let location = response.headers[.location], let current = request.urlRequest.url
        else { return nil }
        let summary = RequestSummary(request.urlRequest)
        func refused(_ message: String) -> EndpointError {
            EndpointError(.redirectRefused, message, request: summary, statusCode: response.statusCode)
        }
        guard let target = URL(string: location, relativeTo: current)?.absoluteURL,
            let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https", target.host != nil
        else {
            throw refused("the redirect to \(location.debugDescription) is not an http or https URL")
        }
        if current.scheme?.lowercased() == "https", scheme == "http" {
            throw refused("the redirect from https to \(Redaction.redactedString(for: target)) would drop TLS")
        }

        var next = request
        next.urlRequest.url = target
        let method = request.urlRequest.httpMethod ?? "GET"
        let becomesGET =
            (response.statusCode == 303 && method != "HEAD")
            || ((response.statusCode == 301 || response.statusCode == 302) && method == "POST")
        if becomesGET {
            next.urlRequest.httpMethod = "GET"
            next.urlRequest.httpBody = nil
            next.urlRequest.httpBodyStream = nil
            next.bodyFileURL = nil
            for (name, _) in next.urlRequest.allHTTPHeaderFields ?? [:] where name.lowercased().hasPrefix("content-") {
                next.urlRequest.setValue(nil, forHTTPHeaderField: name)
            }
        } else if !request.canBeSentAgain {
            throw refused("a \(response.statusCode) redirect needs the body again, but a stream body cannot be re-read")
        }
        if Origin(current) != Origin(target) {
            for name in Self.credentialHeaders + sensitiveHeaders {
                next.urlRequest.setValue(nil, forHTTPHeaderField: name.rawValue)
            }
        }
        return next
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
