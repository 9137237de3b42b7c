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

extension EndpointError {
    /// `error` from encoding a value, without the value: an `EncodingError.invalidValue` holds the value that
    /// failed to encode, which can be a whole request body with a password in it, so its type's name takes its
    /// place. Any other error is kept as it is.
    package static func hidingEncodedValue(_ error: any Error) -> any Error {
        guard case EncodingError.invalidValue(let value, let context) = error else { return error }
        return EncodingError.invalidValue("a \(type(of: value)) value", context)
    }
}
