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
/// - never to a port outside 1–65535, which `URL` accepts but no connection can use (also `redirectRefused`);
/// - when the scheme, host or port changes, every secret header is removed: `Authorization`,
///   `Proxy-Authorization`, `Cookie`, API-key headers and the names in the client's
///   ``RequestDefaults/sensitiveHeaders`` (the same list that redacts logs, errors and cURL output);
/// - 303 (and 301/302 after a `POST`) continues as a `GET` without the body and its `Content-*` headers;
/// - 307 and 308 (and 301/302 after other methods) repeat the method with the original body; a body that
///   cannot be sent again is refused.
///
/// The one deadline of an attempt covers all of its hops.
///
///     EndpointClient(environment: env, redirectPolicy: .never)          // hand 3xx responses back
///     EndpointClient(environment: env, redirectPolicy: RedirectPolicy(maxRedirects: 3))
public struct RedirectPolicy: Sendable {
    /// Whether redirects are followed at all; when `false`, a 3xx is the response.
    public var followsRedirects: Bool
    /// The most hops followed for one request.
    public var maxRedirects: Int

    /// Creates a policy.
    public init(followsRedirects: Bool = true, maxRedirects: Int = 10) {
        self.followsRedirects = followsRedirects
        self.maxRedirects = max(0, maxRedirects)
    }

    /// Follows up to 10 redirects by the rules above.
    public static let `default` = RedirectPolicy()

    /// Follows none: a 3xx response is handed back (and fails the status check of ``EndpointClient/response(for:using:)``).
    public static let never = RedirectPolicy(followsRedirects: false)

    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// The request for the next hop after `response`, or `nil` when `response` is not a redirect to follow.
    func nextRequest(after response: TransportResponse, to request: TransportRequest, redactor: Redactor)
        throws(EndpointError) -> TransportRequest?
    {
        guard followsRedirects, Self.redirectStatuses.contains(response.statusCode),
            let location = response.headers[.location]
        else { return nil }
        let current = request.url
        func refused(_ message: String) -> EndpointError {
            EndpointError(
                .redirectRefused,
                message,
                request: redactor.summary(of: request),
                statusCode: response.statusCode
            )
        }
        guard let target = URL(string: location, relativeTo: current)?.absoluteURL,
            let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https", target.host != nil
        else {
            throw refused("the redirect's Location is not an http or https URL")
        }
        if let problem = target.portProblem {
            throw refused("the redirect's Location \(redactor.redactedString(for: target)) is refused: \(problem)")
        }
        if current.scheme?.lowercased() == "https", scheme == "http" {
            throw refused("the redirect from https to \(redactor.redactedString(for: target)) would drop TLS")
        }

        var next = request
        next.url = target
        let becomesGET =
            (response.statusCode == 303 && request.method != .head)
            || ((response.statusCode == 301 || response.statusCode == 302) && request.method == .post)
        if becomesGET {
            next.method = .get
            next.body = nil
            for field in next.headers where field.name.rawValue.lowercased().hasPrefix("content-") {
                next.headers.remove(field.name)
            }
        } else if !request.canBeSentAgain {
            throw refused("a \(response.statusCode) redirect needs the body again, but it cannot be sent twice")
        }
        if Origin(current) != Origin(target) { redactor.removeCredentials(from: &next.headers) }
        return next
    }
}
