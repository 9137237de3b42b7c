#if AsyncHTTPClient
import AsyncHTTPClient
import EndpointKit
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import NIOSSL

extension AsyncHTTPClientTransport {
    /// What AsyncHTTPClient or SwiftNIO reported, as an ``EndpointError``: cancellation, a timeout, a failed TLS
    /// connection, a compression bomb, a request AsyncHTTPClient refused to send, or a transport failure that
    /// says whether sending again may succeed.
    ///
    /// - Parameters:
    ///   - error: What was thrown.
    ///   - afterHead: Whether the response head had arrived; a connection lost after it means the body was cut
    ///     short, which is transient.
    ///   - idleTimeout: The request's idle timeout, which bounded the wait for the head with its deadline.
    /// - Returns: The error to report.
    static func endpointError(from error: any Error, afterHead: Bool, idleTimeout: Duration?) -> EndpointError {
        if let endpointError = error as? EndpointError { return endpointError }
        let part = afterHead ? "the response body was cut short" : "the transfer failed"
        if error is CancellationError {
            return EndpointError(.cancelled, "the transfer was cancelled", underlyingError: error)
        }
        if error is ResponseChunks.IdleTimeout {
            let wait = idleTimeout.map { " for \(Self.seconds($0)) s" } ?? ""
            return EndpointError(
                .timedOut,
                "no data arrived\(wait), the idle timeout (idleTimeout)",
                underlyingError: error
            )
        }
        if let error = error as? HTTPClientError {
            return endpointError(from: error, part: part, afterHead: afterHead, idleTimeout: idleTimeout)
        }
        if let error = error as? NIOSSLError, case .uncleanShutdown = error {
            // The peer closed the TLS connection without a close_notify: the request may have gone before.
            return EndpointError(.transportFailed, "\(part): \(error)", underlyingError: error, isTransient: true)
        }
        if error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError {
            return EndpointError(
                .secureConnectionFailed,
                "no secure connection: \(error)",
                underlyingError: error,
                mayHaveBeenSent: afterHead
            )
        }
        if let error = error as? NIOHTTPDecompression.DecompressionError, error == .limit {
            return EndpointError(
                .responseTooLarge,
                "the response body inflates to more than \(maximumDecompressionRatio) times its compressed size "
                    + "(the configured decompression limit)",
                underlyingError: error
            )
        }
        // Refused, reset or unreachable connections, and a server that broke off or sent a malformed response.
        let transient =
            afterHead || error is NIOConnectionError || error is IOError || error is ChannelError
            || error is HTTPParserError
        return EndpointError(
            .transportFailed,
            "\(part): \(error)",
            underlyingError: error,
            isTransient: transient,
            mayHaveBeenSent: afterHead || !neverConnected(error)
        )
    }

    /// Whether `error` says no connection was ever made, so no byte of the request left: no address for the host,
    /// every connect attempt refused or unreachable.
    static func neverConnected(_ error: any Error) -> Bool {
        if error is NIOConnectionError || error is SocketAddressError { return true }
        if let error = error as? IOError {
            return [ECONNREFUSED, ENETUNREACH, EHOSTUNREACH, EADDRNOTAVAIL].contains(error.errnoCode)
        }
        return false
    }

    /// `duration` in seconds, rounded to a tenth: "2.5", "60".
    static func seconds(_ duration: Duration) -> String {
        let (whole, fraction) = duration.components
        let tenths = (Double(whole) * 10 + Double(fraction) / 1e17).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? "\(Int64(tenths / 10))" : "\(tenths / 10)"
    }

    private static func endpointError(
        from error: HTTPClientError,
        part: String,
        afterHead: Bool,
        idleTimeout: Duration?
    ) -> EndpointError {
        switch error {
        case .cancelled:
            return EndpointError(.cancelled, "the transfer was cancelled", underlyingError: error)
        case .deadlineExceeded:
            let message =
                idleTimeout.map {
                    "no response head arrived within the idle timeout of \(Self.seconds($0)) s (idleTimeout) or the "
                        + "attempt's deadline (timeout), whichever is shorter"
                } ?? "no response head arrived within the attempt's deadline (timeout)"
            return EndpointError(.timedOut, message, underlyingError: error)
        case .connectTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout:
            // Before a connection was ready for the request: nothing of it left.
            return EndpointError(.timedOut, "\(part): \(error)", underlyingError: error, mayHaveBeenSent: afterHead)
        case .readTimeout, .writeTimeout:
            return EndpointError(.timedOut, "\(part): \(error)", underlyingError: error)
        case .remoteConnectionClosed, .bodyLengthMismatch, .uncleanShutdown:
            return EndpointError(.transportFailed, "\(part): \(error)", underlyingError: error, isTransient: true)
        case .invalidURL, .emptyHost, .emptyScheme, .traceRequestWithBody, .identityCodingIncorrectlyPresent:
            // EndpointClient checks the URL, method and headers before a request reaches the transport; these
            // are what AsyncHTTPClient checks beyond that.
            return EndpointError(
                .invalidRequest,
                "AsyncHTTPClient refused the request: \(error)",
                underlyingError: error
            )
        default:
            return EndpointError(
                .transportFailed,
                "\(part): \(error)",
                underlyingError: error,
                isTransient: afterHead
            )
        }
    }
}
#endif
