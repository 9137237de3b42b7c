extension EndpointError {
    /// `error` as an ``EndpointError``: kept as it is when it already is one, `cancelled` for a
    /// `CancellationError`, and a non-transient `transportFailed` for anything else a middleware or transport
    /// threw.
    static func wrapping(_ error: any Error) -> EndpointError {
        if let endpointError = error as? EndpointError { return endpointError }
        if error is CancellationError {
            return EndpointError(.cancelled, "the task was cancelled", underlyingError: error)
        }
        return EndpointError(.transportFailed, "the request failed: \(error)", underlyingError: error)
    }
}
