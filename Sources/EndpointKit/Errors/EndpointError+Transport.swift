import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension EndpointError {
    /// Classifies what a transport threw: cancellation, a timeout, or another transport failure.
    static func transportFailure(_ error: any Error, request: RequestSummary) -> EndpointError {
        if let endpointError = error as? EndpointError { return endpointError }
        if let tooLarge = error as? URLSessionTransport.ResponseTooLargeError {
            return EndpointError(.responseTooLarge, tooLarge.description, request: request, underlyingError: error)
        }
        if error is CancellationError {
            return EndpointError(.cancelled, "the task was cancelled", request: request, underlyingError: error)
        }
        if let urlError = error as? URLError {
            switch urlError.code {
            case .cancelled:
                return EndpointError(.cancelled, "the transfer was cancelled", request: request, underlyingError: error)
            case .timedOut:
                return EndpointError(.timedOut, "the request timed out", request: request, underlyingError: error)
            default:
                let reason = urlError.userInfo[NSLocalizedDescriptionKey] as? String ?? "\(urlError.code)"
                return EndpointError(
                    .transportFailed,
                    "the transfer failed (URLError \(urlError.code.rawValue)): \(reason)",
                    request: request,
                    underlyingError: error
                )
            }
        }
        return EndpointError(
            .transportFailed,
            "the transport failed: \(error)",
            request: request,
            underlyingError: error
        )
    }
}
