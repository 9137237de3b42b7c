extension TransportRequest {
    /// Why this request cannot be sent as it is, or `nil` when it can: the method must be a token, and every
    /// header a token name with a value free of CR, LF, NUL and other controls, and none the transport manages.
    ///
    /// Checked right before every hop reaches the transport, whatever set the method and headers: the
    /// endpoint, the kind, a middleware or a redirect.
    var problem: String? {
        guard method.isValidToken else {
            return "method \(method.rawValue.debugDescription) is not an HTTP token"
        }
        // Headers checked when the request was built, and not changed since, are not checked again.
        return headers.isChecked ? nil : headers.validate()
    }
}
