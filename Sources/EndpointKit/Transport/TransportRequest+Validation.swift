extension TransportRequest {
    /// Throws ``EndpointError/Kind/invalidRequest`` when the request cannot be sent as it is: a method that is not
    /// an HTTP token, a URL whose port is outside 1–65535, or a header with a name that is not a token, a value
    /// with CR, LF, NUL or another control, or a name the transport manages.
    ///
    /// ``EndpointClient`` checks every hop with it before the transport sees it; the AsyncHTTPClient adapter, when
    /// called directly, checks its input the same way (package API). What was checked and has not changed since (the URL, the headers) is not checked again.
    package func validate() throws(EndpointError) {
        if let problem { throw EndpointError(.invalidRequest, problem, request: RequestSummary(self)) }
    }

    /// Marks the URL and the headers as checked: what ``validate()`` passed when the request was built.
    mutating func markChecked() {
        headers.markChecked()
        isURLChecked = true
    }

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
        if !isURLChecked, let problem = url.portProblem { return problem }
        // Headers checked when the request was built, and not changed since, are not checked again.
        return headers.isChecked ? nil : headers.validate()
    }
}
