import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Endpoint {
    /// Builds the `URLRequest` this endpoint sends in `environment`, prepared by its kind with `requestData`.
    ///
    /// Headers are layered: `defaults`, then the environment's, then the body's `Content-Type`, then the
    /// endpoint's, then whatever the kind sets. Every header name and value is checked before the request
    /// exists. A body streamed from a file is attached as `httpBodyStream`; ``EndpointClient`` itself sends
    /// such bodies with a `Content-Length` instead. A multipart body with file parts is assembled in a
    /// temporary file that the returned request reads; it is yours to delete.
    ///
    /// - Throws: ``EndpointError`` of kind ``EndpointError/Kind/invalidRequest`` for a bad base URL, path,
    ///   method or header, or when the kind refuses; ``EndpointError/Kind/encodingFailed`` when the body
    ///   cannot be encoded.
    public func makeRequest(
        in environment: ServerEnvironment,
        with requestData: Kind.RequestData,
        defaults: RequestDefaults = RequestDefaults()
    ) throws(EndpointError) -> URLRequest {
        let prepared = try makeCall(in: environment, with: requestData, defaults: defaults).request
        var request = URLSessionTransport.makeURLRequest(prepared, idleTimeout: nil)
        if let timeout = try Self.deadline(timeout ?? defaults.timeout, setting: "timeout") {
            request.timeoutInterval = timeout.inSeconds
        }
        switch prepared.body?.storage {
        case .data(let data)?: request.httpBody = data
        case .file(let file)?: request.httpBodyStream = InputStream(url: file)
        case .inputStream(let make)?: request.httpBodyStream = try? make()
        case .chunks?, nil: break
        }
        return request
    }

    /// Builds the call the client sends: the typed request, prepared by the kind, and the endpoint's settings.
    func makeCall(
        in environment: ServerEnvironment,
        with requestData: Kind.RequestData,
        defaults: RequestDefaults
    ) throws(EndpointError) -> PreparedCall {
        let url = try makeURL(in: environment)
        // Redacting the URL costs a parse, so it is done only when an error needs it.
        func summary() -> RequestSummary {
            RequestSummary(method: method, redactedURL: Redactor(defaults).redactedString(for: url))
        }
        func invalid(_ message: String, _ underlying: (any Error)? = nil) -> EndpointError {
            EndpointError(.invalidRequest, message, request: summary(), underlyingError: underlying)
        }
        guard method.isValidToken else {
            throw invalid("method \(method.rawValue.debugDescription) is not an HTTP token")
        }

        let (timeout, idleTimeout): (Duration?, Duration?)
        do throws(EndpointError) {
            timeout = try Self.deadline(self.timeout ?? defaults.timeout, setting: "timeout")
            idleTimeout = try Self.deadline(self.idleTimeout ?? defaults.idleTimeout, setting: "idleTimeout")
        } catch {
            throw invalid(error.message)
        }

        // An absolute URL at another origin gets none of the environment's headers, as a redirect there would not.
        let isAtOrigin = isAtOrigin(of: environment)
        let environmentHeaders = isAtOrigin ? environment.headers : HTTPHeaders()
        var headers = self.headers.merging(defaults: environmentHeaders).merging(defaults: defaults.headers)
        guard self.body == nil || (method != .get && method != .head) else {
            throw invalid("a \(method) request cannot have a body")
        }
        let (body, temporaryFile) = try makeBody(setting: &headers, encoder: defaults.encoder, summary: summary)

        let request: TransportRequest
        do throws(EndpointError) {
            request = try Self.prepared(
                TransportRequest(method: method, url: url, headers: headers, body: body),
                with: requestData,
                invalid: invalid
            )
        } catch {
            if let temporaryFile { try? FileManager.default.removeItem(at: temporaryFile) }
            throw error
        }
        return PreparedCall(
            request: request,
            options: options,
            requiresAuthentication: Kind.requiresAuthentication,
            credentialNames: Kind.credentialNames.isEmpty ? nil : Kind.credentialNames,
            timeout: timeout,
            idleTimeout: idleTimeout,
            bodyLimit: maximumResponseSize ?? defaults.maximumResponseSize,
            leavesEnvironmentOrigin: !isAtOrigin,
            route: self.url == nil ? PreparedCall.Route(basePrefix: environment.base.prefix, path: path) : nil,
            temporaryBodyFile: temporaryFile
        )
    }

    /// `request` as the kind prepares it with `requestData`, then checked by the rule every hop is checked by before
    /// sending (method a token, headers valid, none the transport manages): a kind writes what it likes.
    private static func prepared(
        _ request: TransportRequest,
        with requestData: Kind.RequestData,
        invalid: (String, (any Error)?) -> EndpointError
    ) throws(EndpointError) -> TransportRequest {
        var request = request
        do {
            try Kind.prepare(&request, with: requestData)
        } catch {
            throw invalid("\(Kind.self) refused the request: \(error)", error)
        }
        if let problem = request.problem { throw invalid(problem, nil) }
        request.markChecked()
        return request
    }

    /// The request's body as a transport sends it, with its `Content-Type` set unless the headers name one, and the
    /// temporary file it was written to, if any (a multipart body), which the call removes once sent.
    private func makeBody(
        setting headers: inout HTTPHeaders,
        encoder: JSONEncoder,
        summary: () -> RequestSummary
    ) throws(EndpointError) -> (body: TransportRequest.Body?, temporaryFile: URL?) {
        guard let requestBody = self.body else { return (nil, nil) }
        func failure(_ message: String, _ error: any Error) -> EndpointError {
            EndpointError(.encodingFailed, message, request: summary(), underlyingError: error)
        }
        let content: RequestBodyContent
        do {
            content = try requestBody.makeContent(context: RequestBodyContext(jsonEncoder: encoder))
        } catch {
            let error = EndpointError.hidingEncodedValue(error)
            throw failure("the \(type(of: requestBody)) body could not be encoded: \(error)", error)
        }
        if let contentType = content.contentType, !headers.contains(.contentType) {
            headers[.contentType] = contentType
        }
        do {
            switch content.source {
            case .data(let data): return (.data(data), nil)
            case .file(let file): return (try .file(file), nil)
            case .temporaryFile(let file): return (try .file(file), file)
            case .stream(let makeStream): return (.inputStream(makeStream), nil)
            }
        } catch {
            throw failure("the body file could not be read: \(error)", error)
        }
    }

    /// A timeout setting as the engine keeps it: `nil` for none (unset, or ``Duration/longestServerWait`` and
    /// longer); an error for a zero or negative one.
    private static func deadline(_ setting: Duration?, setting name: String) throws(EndpointError) -> Duration? {
        guard let setting else { return nil }
        guard setting > .zero else {
            throw EndpointError(.invalidRequest, "the \(name) must be positive, not \(setting)")
        }
        return setting < .longestServerWait ? setting : nil
    }

    /// The absolute URL: base URL path, then ``path``; the environment's query items, then ``queryItems``.
    func makeURL(in environment: ServerEnvironment) throws(EndpointError) -> URL {
        if let url { return try makeAbsoluteURL(url, in: environment) }
        let base = environment.base
        guard base.isHTTPWithHost else {
            throw invalidURL("the base URL must be an absolute http or https URL with a host", environment.baseURL)
        }
        if let problem = path.problem {
            throw invalidURL("invalid path \"\(path)\": \(problem)", environment.baseURL)
        }

        // Built as text and parsed once: URLComponents would parse the base URL again on every request.
        var text = base.prefix + "/" + path.percentEncoded
        let query = (base.query.map { [$0] } ?? []) + encodedQuery(adding: environment.queryItems)
        if !query.isEmpty { text += "?" + query.joined(separator: "&") }
        guard let url = URL(string: text) else {
            throw invalidURL("the URL for path \"\(path)\" could not be formed", environment.baseURL)
        }
        return url
    }

    /// Whether the endpoint is sent to the environment's origin: always, unless ``Endpoint/url`` names another.
    func isAtOrigin(of environment: ServerEnvironment) -> Bool {
        url.map { Origin($0) == Origin(environment.baseURL) } ?? true
    }

    /// ``Endpoint/url`` as sent: checked, without its fragment, with ``queryItems`` (and, at the environment's
    /// origin, the environment's query items the URL does not name) after its own query.
    private func makeAbsoluteURL(_ url: URL, in environment: ServerEnvironment) throws(EndpointError) -> URL {
        guard Self.isHTTPWithHost(url) else {
            throw invalidURL("the endpoint's URL must be an absolute http or https URL with a host", url)
        }
        guard url.user == nil, url.password == nil else {
            throw invalidURL("the endpoint's URL must not carry user info; send credentials through its kind", url)
        }
        var text = url.absoluteString
        if let fragment = text.firstIndex(of: "#") { text = String(text[..<fragment]) }
        // The environment's query items go to its origin only, and not twice: a next-page link that already
        // names one keeps its own.
        var defaults = isAtOrigin(of: environment) ? environment.queryItems : []
        if !defaults.isEmpty {
            let named = Set(URLComponents(url: url, resolvingAgainstBaseURL: true)?.queryItems?.map(\.name) ?? [])
            defaults.removeAll { named.contains($0.name) }
        }
        let query = encodedQuery(adding: defaults)
        if !query.isEmpty {
            if text.hasSuffix("?") { text.removeLast() }
            text += (text.firstIndex(of: "?") == nil ? "?" : "&") + query.joined(separator: "&")
        }
        guard let absolute = URL(string: text) else { throw invalidURL("the endpoint's URL could not be formed", url) }
        return absolute
    }

    /// `defaults` whose names the endpoint does not use, then ``queryItems``, each encoded as `name=value`.
    private func encodedQuery(adding defaults: [URLQueryItem]) -> [String] {
        var query: [String] = []
        if !defaults.isEmpty {
            let ownNames = Set(queryItems.map(\.name))
            for item in defaults where !ownNames.contains(item.name) { query.append(Self.encoded(item)) }
        }
        for item in queryItems { query.append(Self.encoded(item)) }
        return query
    }

    private static func isHTTPWithHost(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", let host = url.host
        else { return false }
        return !host.isEmpty
    }

    /// An ``EndpointError/Kind/invalidRequest`` about the URL, naming `url` redacted.
    private func invalidURL(_ message: String, _ url: URL) -> EndpointError {
        EndpointError(
            .invalidRequest,
            message,
            request: RequestSummary(method: method, redactedURL: Redaction.redactedString(for: url))
        )
    }

    private static func encoded(_ item: URLQueryItem) -> String {
        let name = PercentEncoding.encodeQueryComponent(item.name)
        return item.value.map { name + "=" + PercentEncoding.encodeQueryComponent($0) } ?? name
    }
}
