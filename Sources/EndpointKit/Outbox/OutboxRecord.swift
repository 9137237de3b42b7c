import Foundation

/// A write as the outbox keeps it on disk: the request to send, without credentials, its key, its group, and the
/// optimistic value a ``ModelLoader`` showed for it. JSON, one file per write (see `OutboxJournal`).
struct OutboxRecord: Codable, Sendable {
    struct Header: Codable, Sendable {
        var name: String
        var value: String
    }

    struct QueryItem: Codable, Sendable {
        var name: String
        var value: String?
    }

    /// The format; a record of another is set aside as damaged rather than misread.
    var format = 1
    var id: String
    var key: String
    var group: String
    var queuedAt: Date
    var method: String
    /// The path below the environment's base URL, percent-encoded; empty for an endpoint with an absolute URL.
    var path: String
    var url: String?
    var query: [QueryItem]
    var headers: [Header]
    var body: Data?
    var contentType: String?
    /// The loader whose store showed the write (its model type), and the value it showed, encoded.
    var store: String?
    var value: Data?
}

extension OutboxRecord {
    /// The record of `endpoint`: its request as the endpoint describes it, before its kind or any middleware adds
    /// credentials.
    ///
    /// - Throws: ``EndpointError/Kind/invalidRequest`` for an endpoint that cannot be sent, carries a secret header
    ///   or query item (the outbox never writes credentials to disk), or streams its body.
    init<Kind, Response>(
        _ endpoint: Endpoint<Kind, Response>,
        group: String,
        client: EndpointClient,
        key: String?
    ) throws(EndpointError) {
        let url = try endpoint.makeURL(in: client.environment)
        func invalid(_ message: String) -> EndpointError {
            EndpointError(
                .invalidRequest,
                "an outbox write \(message)",
                request: RequestSummary(method: endpoint.method, redactedURL: client.redactor.redactedString(for: url))
            )
        }
        if let problem = endpoint.headers.validate() { throw invalid("has a header that cannot be sent: \(problem)") }
        if let secret = endpoint.headers.first(where: { client.redactor.isSensitive($0.name) }) {
            throw invalid(
                "carries the secret header \(secret.name), and the outbox never writes credentials to disk; let the "
                    + "endpoint's kind or an authentication middleware add it when the write is sent"
            )
        }
        // The endpoint's own query only: the environment's items (an API key it adds) are added at send time.
        let ownURLItems = endpoint.url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false)?.queryItems }
        let ownItems = endpoint.queryItems + (ownURLItems ?? [])
        if let secret = ownItems.first(where: { client.redactor.isSensitiveQueryName($0.name) }) {
            throw invalid(
                "carries the secret query item \(secret.name), and the outbox never writes credentials to disk"
            )
        }
        let content = try Self.content(of: endpoint, client: client, invalid: invalid)
        let ownKey = endpoint.headers[.idempotencyKey].map(Self.unquoted)
        self.init(
            id: UUID().uuidString,
            key: ownKey ?? key ?? UUID().uuidString,
            group: group,
            queuedAt: Date(),
            method: endpoint.method.rawValue,
            path: endpoint.url == nil ? endpoint.path.percentEncoded : "",
            url: endpoint.url?.absoluteString,
            query: endpoint.queryItems.map { QueryItem(name: $0.name, value: $0.value) },
            headers: endpoint.headers.map { Header(name: $0.name.rawValue, value: $0.value) },
            body: content?.data,
            contentType: content?.contentType
        )
    }

    /// A key as it is, from a header that may hold it as a Structured Field string (`"key"`).
    static func unquoted(_ value: String) -> String {
        guard value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") else { return value }
        return String(value.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
            .replacingOccurrences(of: "\\\\", with: "\\")
    }

    /// The body's bytes: in memory, or read from its file; a stream cannot be kept.
    private static func content<Kind, Response>(
        of endpoint: Endpoint<Kind, Response>,
        client: EndpointClient,
        invalid: (String) -> EndpointError
    ) throws(EndpointError) -> (data: Data, contentType: String?)? {
        guard let body = endpoint.body else { return nil }
        let content: RequestBodyContent
        do {
            content = try body.makeContent(context: RequestBodyContext(jsonEncoder: client.defaults.encoder))
        } catch {
            throw EndpointError(.encodingFailed, "an outbox write's body could not be encoded: \(error)")
        }
        switch content.source {
        case .data(let data):
            return (data, content.contentType)
        case .file(let file), .temporaryFile(let file):
            guard let data = try? Data(contentsOf: file) else { throw invalid("has a body file that cannot be read") }
            if case .temporaryFile = content.source { try? FileManager.default.removeItem(at: file) }
            return (data, content.contentType)
        case .stream:
            throw invalid("has a streamed body, which cannot be kept on disk; give it as data or a file")
        }
    }

    /// The request to send, as an endpoint of `Kind` read as raw bytes, with the write's key.
    func endpoint<Kind: EndpointKind>(_ kind: Kind.Type, keyFormat: OutboxPolicy.KeyFormat) -> Endpoint<Kind, Data> {
        let method = HTTPMethod(rawValue: method)
        var headers = HTTPHeaders(headers.map { HTTPHeaders.Field(name: HTTPHeaders.Name($0.name), value: $0.value) })
        if headers[.idempotencyKey] == nil {
            headers[.idempotencyKey] = keyFormat == .bare ? key : "\"\(key)\""
        }
        let queryItems = query.map { URLQueryItem(name: $0.name, value: $0.value) }
        let body = self.body.map { DataBody($0, contentType: contentType ?? "application/octet-stream") }
        var endpoint: Endpoint<Kind, Data>
        if let url, let absolute = URL(string: url) {
            endpoint = Endpoint(method: method, url: absolute, queryItems: queryItems, headers: headers, body: body)
        } else {
            endpoint = Endpoint(
                method: method,
                path: EndpointPath(stringLiteral: path),
                queryItems: queryItems,
                headers: headers,
                body: body
            )
        }
        // The outbox pairs each write with its own key; another key from a middleware would defeat it.
        endpoint.options.isIdempotencyKeyed = false
        return endpoint
    }

    /// What observers see of the write numbered `sequence`.
    func write(sequence: UInt64, client: EndpointClient) -> OutboxWrite {
        let method = HTTPMethod(rawValue: method)
        let endpoint = endpoint(EndpointKinds.Public.self, keyFormat: .bare)
        let url = try? endpoint.makeURL(in: client.environment)
        return OutboxWrite(
            id: id,
            group: group,
            sequence: sequence,
            idempotencyKey: key,
            request: url.map { RequestSummary(method: method, url: $0, redactor: client.redactor) }
                ?? RequestSummary(method: method, redactedURL: "(invalid URL)"),
            queuedAt: queuedAt
        )
    }
}
