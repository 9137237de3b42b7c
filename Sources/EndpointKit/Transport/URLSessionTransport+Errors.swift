import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// What URLSession reported, as an ``EndpointError``: cancellation, a timeout, or a transport failure that
    /// says whether sending again may succeed.
    ///
    /// - Parameters:
    ///   - error: What URLSession reported, or `nil` when a task ended without a response or an error.
    ///   - afterHead: Whether the response head had arrived; a connection lost after it means the body was cut
    ///     short, which is transient whatever code Linux gives it (it often reports an unknown error).
    ///   - idleTimeout: The idle timeout that applied and the setting it came from, named when it passes.
    /// - Returns: The error to report.
    static func endpointError(
        from error: (any Error)?,
        afterHead: Bool,
        idleTimeout: (seconds: TimeInterval, setting: String) = (60, "URLSession's default")
    ) -> EndpointError {
        guard let error else {
            return EndpointError(.transportFailed, "the transfer ended without a response", isTransient: true)
        }
        if let endpointError = error as? EndpointError { return endpointError }
        guard let urlError = error as? URLError else {
            return EndpointError(.transportFailed, "the transfer failed: \(error)", underlyingError: error)
        }
        switch urlError.code {
        case .cancelled:
            return EndpointError(.cancelled, "the transfer was cancelled", underlyingError: error)
        case .timedOut where idleTimeout.setting == "timeout":
            // URLSession's one timer stood for the deadline: say so, as the deadline's own error does.
            var deadline = EndpointError.deadlinePassed(.seconds(idleTimeout.seconds))
            deadline.underlyingError = error
            return deadline
        case .timedOut:
            let wait = Duration.seconds(idleTimeout.seconds).readable
            return EndpointError(
                .timedOut,
                "no data arrived for \(wait), the idle timeout (\(idleTimeout.setting))",
                underlyingError: error
            )
        default:
            let reason = urlError.userInfo[NSLocalizedDescriptionKey] as? String ?? "\(urlError.code)"
            if !afterHead, isSecureConnectionFailure(urlError, reason: reason) {
                return EndpointError(
                    .secureConnectionFailed,
                    "no secure connection (URLError \(urlError.code.rawValue)): \(reason)",
                    underlyingError: error,
                    mayHaveBeenSent: false
                )
            }
            let part = afterHead ? "the response body was cut short" : "the transfer failed"
            return EndpointError(
                .transportFailed,
                "\(part) (URLError \(urlError.code.rawValue)): \(reason)",
                underlyingError: error,
                isTransient: afterHead || transientCodes.contains(urlError.code),
                mayHaveBeenSent: afterHead || !unsentCodes.contains(urlError.code)
            )
        }
    }

    /// A `101 Switching Protocols` no request asked for: the connection no longer speaks HTTP.
    static func switchedProtocols(headers: HTTPHeaders) -> EndpointError {
        EndpointError(
            .transportFailed,
            "the server answered 101 Switching Protocols (to \(headers["upgrade"] ?? "an unnamed protocol")), "
                + "though the request asked for no upgrade",
            statusCode: 101,
            responseHeaders: headers
        )
    }

    /// A body that ended before its announced `Content-Length`.
    static func truncated(received: Int, announced: Int) -> EndpointError {
        EndpointError(
            .transportFailed,
            "the response body was cut short: \(received) of \(announced) bytes arrived",
            isTransient: true
        )
    }

    /// Whether `error` is a failed TLS handshake or an untrusted certificate. Apple platforms have codes for it;
    /// Linux reports most of them as `URLError.unknown` with libcurl's message, which starts with "SSL" (e.g.
    /// "SSL certificate problem: unable to get local issuer certificate", "SSL: no alternative certificate
    /// subject name matches target host name").
    static func isSecureConnectionFailure(_ error: URLError, reason: String) -> Bool {
        if secureConnectionCodes.contains(error.code) { return true }
        return error.code == .unknown && reason.hasPrefix("SSL")
    }

    private static let secureConnectionCodes: Set<URLError.Code> = [
        .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
        .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
        .clientCertificateRequired,
    ]

    /// Failures of the connection rather than of the request: sending again may succeed.
    /// Codes that come before any byte of the request leaves: no address for the host, no connection made (Linux
    /// reports a refused connection as -1004), no network, a URL no protocol takes.
    private static let unsentCodes: Set<URLError.Code> = [
        .cannotFindHost, .dnsLookupFailed, .cannotConnectToHost, .notConnectedToInternet, .badURL, .unsupportedURL,
        .appTransportSecurityRequiresSecureConnection, .internationalRoamingOff, .callIsActive, .dataNotAllowed,
    ]

    private static let transientCodes: Set<URLError.Code> = [
        .networkConnectionLost, .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet,
        .badServerResponse, .resourceUnavailable,
    ]
}
