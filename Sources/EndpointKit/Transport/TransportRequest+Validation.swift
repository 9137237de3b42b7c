extension TransportRequest {
    /// Why this request cannot be sent as it is, or `nil` when it can: the method must be a token, the URL's port
    /// (if it names one) in 1–65535, and every header a token name with a value free of CR, LF, NUL and other
    /// controls, and none the transport manages.
    ///
    /// Checked right before every hop reaches the transport, whatever set the URL, method and headers: the
    /// endpoint, the environment, the kind, a middleware, a next page or a redirect.
    var problem: String? {
        guard method.isValidToken else {
            return "method \(method.rawValue.debugDescription) is not an HTTP token"
        }
        if let problem = url.portProblem { return problem }
        // Headers checked when the request was built, and not changed since, are not checked again.
        return headers.isChecked ? nil : headers.validate()
    }
}
