import Foundation

/// A write as the outbox keeps it on disk: the request to send, without credentials, its key, its group, and the
/// optimistic value a ``ModelLoader`` showed for it. JSON, one file per write (see `OutboxJournal`).
package struct OutboxRecord: Codable, Sendable {
    struct Header: Codable, Sendable {
        var name: String
        var value: String
    }

    struct QueryItem: Codable, Sendable {
        var name: String
        var value: String?
    }

    /// The settings of the endpoint that shape how it is sent and how its answer is read.
    struct Settings: Codable, Sendable {
        /// The endpoint's own envelope: `nil` for the client's; an envelope with no key for plain bodies.
        var envelope: Envelope?
        var timeout: Duration?
        var idleTimeout: Duration?
        var maximumResponseSize: Int?
        var isLogged = true
        var isThrottled = true
        var isCached = true
        /// `nil` in records written before 0.15.0, which knew no rate limit: `true`.
        var isRateLimited: Bool?
    }

    /// An envelope, by its key (`nil`: plain bodies).
    struct Envelope: Codable, Sendable {
        var key: String?

        /// The envelope it stands for.
        var responseEnvelope: ResponseEnvelope { key.map(ResponseEnvelope.networkResponse(key:)) ?? .plain }
    }

    /// The formats this version reads: 1 (0.8, whose key took the policy's form at each try and which kept no
    /// settings) and 2. A record of another is set aside as damaged rather than misread.
    package static let readableFormats: Set<Int> = [1, 2]

    package var format = 2
    package var id: String
    package var key: String
    /// The `Idempotency-Key` header's value, fixed when the write was queued, so that every try sends the same
    /// bytes whatever the policy says later (format 2; a format 1 record takes the policy's form).
    var keyHeader: String?
    package var group: String
    package var queuedAt: Date
    var method: String
    /// The path below the environment's base URL, percent-encoded; empty for an endpoint with an absolute URL.
    var path: String
    var url: String?
    var query: [QueryItem]
    var headers: [Header]
    var body: Data?
    var contentType: String?
    /// The endpoint's settings (format 2; a format 1 record has the client's).
    var settings: Settings?
    /// The loader whose store showed the write (its model type), and the value it showed, encoded.
    var store: String?
    var value: Data?
}

extension OutboxRecord {
    /// The record of `endpoint`: its request as the endpoint describes it, before its kind or any middleware adds
    /// credentials.
    ///
    /// - Throws: ``EndpointError/Kind/invalidRequest`` for an endpoint that cannot be sent, carries a secret header
    ///   or query item (the outbox never writes credentials to disk), streams its body, or has a setting the record
    ///   cannot keep (see `settings(of:client:invalid:)`).
    package init<Kind, Response>(
        _ endpoint: Endpoint<Kind, Response>,
        group: String?,
        client: EndpointClient,
        policy: OutboxPolicy
    ) throws(EndpointError) {
        let url = try endpoint.makeURL(in: client.environment)
        let redactor = client.redactor(for: Kind.self)
        func invalid(_ message: String) -> EndpointError {
            EndpointError(
                .invalidRequest,
                "an outbox write \(message)",
                request: RequestSummary(method: endpoint.method, redactedURL: redactor.redactedString(for: url))
            )
        }
        if let problem = endpoint.headers.validate() { throw invalid("has a header that cannot be sent: \(problem)") }
        if let secret = endpoint.headers.first(where: { redactor.isSensitive($0.name) }) {
            throw invalid(
                "carries the secret header \(secret.name), and the outbox never writes credentials to disk; let the "
                    + "endpoint's kind or an authentication middleware add it when the write is sent"
            )
        }
        // The endpoint's own query only: the environment's items (an API key it adds) are added at send time.
        let ownURLItems = endpoint.url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false)?.queryItems }
        let ownItems = endpoint.queryItems + (ownURLItems ?? [])
        if let secret = ownItems.first(where: { redactor.isSensitiveQueryName($0.name) }) {
            throw invalid(
                "carries the secret query item \(secret.name), and the outbox never writes credentials to disk"
            )
        }
        let settings = try Self.settings(of: endpoint, client: client, invalid: invalid)
        let content = try Self.content(of: endpoint, client: client, invalid: invalid)
        let ownKey = endpoint.headers[.idempotencyKey]
        let key = ownKey.map(Self.unquoted) ?? UUID().uuidString
        self.init(
            id: UUID().uuidString,
            key: key,
            keyHeader: ownKey ?? Self.header(for: key, format: policy.keyFormat),
            group: group ?? endpoint.options.outboxGroup ?? OutboxWrite.defaultGroup,
            queuedAt: Date(),
            method: endpoint.method.rawValue,
            path: endpoint.url == nil ? endpoint.path.percentEncoded : "",
            url: endpoint.url?.absoluteString,
            query: endpoint.queryItems.map { QueryItem(name: $0.name, value: $0.value) },
            headers: endpoint.headers.map { Header(name: $0.name.rawValue, value: $0.value) },
            body: content?.data,
            contentType: content?.contentType,
            settings: settings
        )
    }

    /// The header value of `key` in `format`.
    static func header(for key: String, format: OutboxPolicy.KeyFormat) -> String {
        format == .bare ? key : "\"\(key)\""
    }

    /// The endpoint's settings the record keeps; a setting it cannot keep is refused rather than dropped: a
    /// decoder (the answer is read with the client's), a retry policy (the outbox's backoff is the only one), cache
    /// directives, `isValidated = false` (the outbox must judge the status), and options of the user's own keys.
    private static func settings<Kind, Response>(
        of endpoint: Endpoint<Kind, Response>,
        client: EndpointClient,
        invalid: (String) -> EndpointError
    ) throws(EndpointError) -> Settings {
        // The client's own decoder is kept by the client: answers read after a restart are read the same way.
        let ownDecoder = endpoint.decoder.map { $0 !== client.defaults.decoder } ?? false
        let refused: [(Bool, String)] = [
            (
                ownDecoder,
                "a decoder other than its client's (the outbox reads answers with the client's decoder; give the "
                    + "client this decoder in its RequestDefaults)"
            ),
            (endpoint.options.retryPolicy != nil, "a retry policy (the outbox's own backoff is its only one)"),
            (endpoint.options.cacheDirectives != CacheDirectives(), "cache directives (a write is never served)"),
            (!endpoint.options.isValidated, "isValidated = false (the outbox must judge each answer's status)"),
            (endpoint.options.foreignOptionCount > 0, "options of its own keys, which cannot be kept on disk"),
        ]
        if let (_, setting) = refused.first(where: \.0) {
            throw invalid("has \(setting); the outbox keeps a write on disk and cannot keep that")
        }
        return Settings(
            envelope: endpoint.envelope.map { Envelope(key: $0.key) },
            timeout: endpoint.timeout,
            idleTimeout: endpoint.idleTimeout,
            maximumResponseSize: endpoint.maximumResponseSize,
            isLogged: endpoint.options.isLogged,
            isThrottled: endpoint.options.isThrottled,
            isCached: endpoint.options.isCached,
            isRateLimited: endpoint.options.isRateLimited
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
            throw EndpointError(
                .encodingFailed,
                "an outbox write's body could not be encoded: \(EndpointError.hidingEncodedValue(error))"
            )
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
    package func endpoint<Kind: EndpointKind>(_ kind: Kind.Type, keyFormat: OutboxPolicy.KeyFormat) -> Endpoint<
        Kind, Data
    > {
        let method = HTTPMethod(rawValue: method)
        var headers = HTTPHeaders(headers.map { HTTPHeaders.Field(name: HTTPHeaders.Name($0.name), value: $0.value) })
        if headers[.idempotencyKey] == nil {
            headers[.idempotencyKey] = keyHeader ?? Self.header(for: key, format: keyFormat)
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
        // The outbox pairs each write with its own key; another key from a middleware would defeat it. Its
        // backoff is the only one: a `Retry` middleware's tries would multiply it.
        endpoint.options.isIdempotencyKeyed = false
        endpoint.options.retryPolicy = .never
        apply(settings, to: &endpoint)
        return endpoint
    }

    /// Puts the kept settings back on `endpoint`.
    private func apply<Kind: EndpointKind>(_ settings: Settings?, to endpoint: inout Endpoint<Kind, Data>) {
        guard let settings else { return }
        endpoint.envelope = settings.envelope?.responseEnvelope
        endpoint.timeout = settings.timeout
        endpoint.idleTimeout = settings.idleTimeout
        endpoint.maximumResponseSize = settings.maximumResponseSize
        endpoint.options.isLogged = settings.isLogged
        endpoint.options.isThrottled = settings.isThrottled
        endpoint.options.isCached = settings.isCached
        endpoint.options.isRateLimited = settings.isRateLimited ?? true
    }

    /// The envelope the answer is read in: the endpoint's own, or else `client`'s.
    func envelope(client: EndpointClient) -> ResponseEnvelope {
        settings?.envelope?.responseEnvelope ?? client.envelope
    }

    /// What observers see of the write numbered `sequence`.
    package func write(sequence: UInt64, client: EndpointClient) -> OutboxWrite {
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
