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
    /// such bodies with a `Content-Length` through ``TransportRequest/bodyFileURL`` instead. A multipart body
    /// with file parts is assembled in a temporary file that the returned request reads; it is yours to delete.
    ///
    /// - Throws: ``EndpointError`` of kind ``EndpointError/Kind/invalidRequest`` for a bad base URL, path,
    ///   method or header, or when the kind refuses; ``EndpointError/Kind/encodingFailed`` when the body
    ///   cannot be encoded.
    public func makeRequest(
        in environment: ServerEnvironment,
        with requestData: Kind.RequestData,
        defaults: RequestDefaults = RequestDefaults()
    ) throws(EndpointError) -> URLRequest {
        let prepared = try makeTransportRequest(in: environment, with: requestData, defaults: defaults)
        var request = prepared.urlRequest
        if let file = prepared.bodyFileURL { request.httpBodyStream = InputStream(url: file) }
        return request
    }

    /// Builds the request and, for a file body, the file to stream.
    func makeTransportRequest(
        in environment: ServerEnvironment,
        with requestData: Kind.RequestData,
        defaults: RequestDefaults
    ) throws(EndpointError) -> TransportRequest {
        let url = try makeURL(in: environment)
        // Redacting the URL costs a parse, so it is done only when an error needs it.
        func summary() -> RequestSummary {
            RequestSummary(method: method, redactedURL: Redaction.redactedString(for: url))
        }
        func invalid(_ message: String, _ underlying: (any Error)? = nil) -> EndpointError {
            EndpointError(.invalidRequest, message, request: summary(), underlyingError: underlying)
        }
        guard method.isValidToken else {
            throw invalid("method \(method.rawValue.debugDescription) is not an HTTP token")
        }

        var request = URLRequest(url: url, timeoutInterval: timeout ?? defaults.timeout)
        request.httpMethod = method.rawValue
        request.cachePolicy = cachePolicy ?? defaults.cachePolicy
        var headers = self.headers.merging(defaults: environment.headers).merging(defaults: defaults.headers)
        var prepared = TransportRequest(urlRequest: request)
        if let body {
            guard method != .get, method != .head else {
                throw invalid("a \(method) request cannot have a body")
            }
            let content: RequestBodyContent
            do {
                content = try body.makeContent(context: RequestBodyContext(jsonEncoder: defaults.encoder))
            } catch {
                throw EndpointError(
                    .encodingFailed,
                    "the \(type(of: body)) body could not be encoded: \(error)",
                    request: summary(),
                    underlyingError: error
                )
            }
            if let contentType = content.contentType, !headers.contains(.contentType) {
                headers[.contentType] = contentType
            }
            switch content.source {
            case .data(let data):
                request.httpBody = data
            case .file(let file):
                prepared.bodyFileURL = file
            case .temporaryFile(let file):
                prepared.bodyFileURL = file
                prepared.removesBodyFileAfterSending = true
            case .stream(let makeStream):
                do {
                    request.httpBodyStream = try makeStream()
                } catch {
                    throw EndpointError(
                        .encodingFailed,
                        "the body stream could not be opened: \(error)",
                        request: summary(),
                        underlyingError: error
                    )
                }
            }
        }
        if let problem = headers.validate() { throw invalid(problem) }
        for field in headers { request.addValue(field.value, forHTTPHeaderField: field.name.rawValue) }

        do {
            try Kind.prepare(&request, with: requestData)
        } catch {
            throw invalid("\(Kind.self) refused the request: \(error)", error)
        }
        // A kind writes through URLRequest directly, so its headers are checked after the fact.
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            if let problem = HTTPHeaders.problem(name: name, value: value) { throw invalid(problem) }
        }
        prepared.urlRequest = request
        return prepared
    }

    /// The absolute URL: base URL path, then ``path``; the environment's query items, then ``queryItems``.
    func makeURL(in environment: ServerEnvironment) throws(EndpointError) -> URL {
        let base = environment.baseURL
        func invalid(_ message: String) -> EndpointError {
            EndpointError(
                .invalidRequest,
                message,
                request: RequestSummary(method: method, redactedURL: Redaction.redactedString(for: base))
            )
        }
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty
        else {
            throw invalid("the base URL must be an absolute http or https URL with a host")
        }
        if let problem = path.problem { throw invalid("invalid path \"\(path)\": \(problem)") }

        var basePath = components.percentEncodedPath
        while basePath.hasSuffix("/") { basePath.removeLast() }
        components.percentEncodedPath = basePath + "/" + path.percentEncoded
        components.fragment = nil

        let ownNames = Set(queryItems.map(\.name))
        let items = environment.queryItems.filter { !ownNames.contains($0.name) } + queryItems
        var query = components.percentEncodedQuery.map { [$0] } ?? []
        for item in items {
            let name = PercentEncoding.encodeQueryComponent(item.name)
            query.append(item.value.map { name + "=" + PercentEncoding.encodeQueryComponent($0) } ?? name)
        }
        components.percentEncodedQuery = query.isEmpty ? nil : query.joined(separator: "&")
        guard let url = components.url else {
            throw invalid("the URL for path \"\(path)\" could not be formed")
        }
        return url
    }
}
