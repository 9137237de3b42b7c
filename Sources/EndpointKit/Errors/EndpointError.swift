import Foundation

/// The one error type EndpointKit's client throws, with the context needed to fix the call.
///
/// Switch over ``kind`` to decide what to do, and log ``description``: it is a single line holding the
/// method, the redacted URL, the status, a bounded body snippet and, for decoding, the coding path. It never
/// holds a token: `Authorization`, cookies and secret query values are redacted.
///
///     do {
///         let item = try await client.response(for: .item(42))
///     } catch {
///         switch error.kind {
///         case .unacceptableStatus where error.statusCode == 404: showMissing()
///         case .cancelled: break
///         default: logger.error("\(error)")
///         }
///     }
public struct EndpointError: Error, Sendable, CustomStringConvertible, CustomReflectable {
    /// What went wrong, as a diagnosis you can switch over.
    public var kind: Kind
    /// A human-readable explanation of this failure.
    public var message: String
    /// The request's method and redacted URL, or `nil` when the failure happened before a URL existed.
    public var request: RequestSummary?
    /// The hop that failed, when redirects led away from ``request``: the method and redacted URL of the request
    /// that got the failing answer (a CDN's 403 behind the API's 302) or whose transfer failed; `nil` when it is
    /// ``request`` itself.
    public var hop: RequestSummary?
    /// The HTTP status code, or `nil` when no response arrived.
    public var statusCode: Int?
    /// The response headers, or `nil` when no response arrived. Sensitive values stay in here; ``description``
    /// never prints them.
    public var responseHeaders: HTTPHeaders?
    /// The first ``bodySnippetLimit`` bytes of the response body as lossy UTF-8, or `nil` when no body arrived.
    public var bodySnippet: String?
    /// For ``Kind/decodingFailed``, where in the body decoding failed, e.g. `result.items[3].price`.
    public var codingPath: String?
    /// How many times the request was sent, counting retries, or `nil` when it was never sent.
    public var attempts: Int?
    /// The request as a `curl` command with secrets redacted, or `nil` when the request could not be built.
    public var curlCommand: String?
    /// The error that caused this one (`URLError`, `DecodingError`, `CancellationError`, a transport's own),
    /// or `nil`.
    public var underlyingError: (any Error)?
    /// Whether the failure came from the connection rather than the request (refused, reset, closed before the
    /// body was complete), so that sending the same request again may succeed. Whether it is safe to send it
    /// again depends on the method; ``Retry`` decides that.
    public var isTransient: Bool
    /// How long the server asked to wait, for ``Kind/rateLimited``; otherwise `nil`.
    public var retryAfter: Duration?
    /// Whether the request may have reached the server: `false` only when none of it can have left this machine
    /// (the host had no address, the connection was refused or never made, there was no network, the TLS
    /// handshake failed, the request could not be built or its kind's request data could not be had). `true`
    /// whenever a byte may have gone (a connection lost after the request began, a timeout while waiting for the
    /// answer), an answer arrived, or the transport cannot tell. Over every try of a call: `true` if any try may
    /// have been sent. An ``Outbox`` rolls a write back at its age only when no try of it may have been sent.
    public var mayHaveBeenSent: Bool

    /// How many bytes of a response body ``bodySnippet`` keeps.
    public static let bodySnippetLimit = 512
    /// How many bytes of a response body ``body`` keeps.
    public static let bodyLimit = 64 * 1024
    /// The response body, up to ``bodyLimit`` bytes, for reading an error the server described at length; `nil`
    /// without a response or with an empty body. Credentials the request carried are replaced, as in
    /// ``bodySnippet``; unlike it, this is never printed by ``description`` or `dump`.
    public var body: Data?

    /// Creates an error; EndpointKit creates these for you, and custom transports and kinds may too.
    ///
    /// `mayHaveBeenSent` defaults to `true`, except for a request that could not be built
    /// (``Kind/invalidRequest``, ``Kind/encodingFailed``, ``Kind/notCached``) without a status: a transport passes
    /// `false` when it knows no byte of the request left (see ``mayHaveBeenSent``).
    public init(
        _ kind: Kind,
        _ message: String,
        request: RequestSummary? = nil,
        statusCode: Int? = nil,
        responseHeaders: HTTPHeaders? = nil,
        body: Data? = nil,
        codingPath: String? = nil,
        underlyingError: (any Error)? = nil,
        isTransient: Bool = false,
        mayHaveBeenSent: Bool? = nil
    ) {
        self.kind = kind
        self.message = message
        self.request = request
        self.statusCode = statusCode
        self.responseHeaders = responseHeaders
        self.bodySnippet = body.flatMap(Self.snippet)
        self.body = body.flatMap { $0.isEmpty ? nil : Data($0.prefix(Self.bodyLimit)) }
        self.codingPath = codingPath
        self.underlyingError = underlyingError
        self.isTransient = isTransient
        self.mayHaveBeenSent = mayHaveBeenSent ?? (statusCode != nil || !Self.builtBeforeSending.contains(kind))
    }

    /// Kinds raised before a request is handed to a transport: by default, nothing of it was sent.
    private static let builtBeforeSending: Set<Kind> = [.invalidRequest, .encodingFailed, .notCached]

    /// One log line: kind, request, status, message, coding path and body snippet; secrets redacted.
    ///
    /// One line whatever the server sent: line breaks and other control characters in server bytes (a body, a
    /// key or value quoted in a decoding message) are escaped, so they cannot forge log lines.
    public var description: String {
        var parts = ["EndpointError.\(kind)"]
        if let request { parts.append(request.description) }
        if let hop { parts.append("at hop \(hop.description)") }
        if let statusCode { parts.append("status \(statusCode)") }
        if let attempts, attempts > 1 { parts.append("after \(attempts) attempts") }
        parts.append(message)
        if let codingPath { parts.append("at \(codingPath.isEmpty ? "<root>" : codingPath)") }
        if let bodySnippet, !bodySnippet.isEmpty { parts.append("body: \(bodySnippet)") }
        return Self.singleLine(parts.joined(separator: " | "))
    }

    /// A mirror of what ``description`` shows and the underlying error's type only, so that `dump` prints no
    /// secret and no raw server bytes.
    public var customMirror: Mirror {
        var children: [(label: String?, value: Any)] = [("kind", kind), ("message", Self.singleLine(message))]
        if let request { children.append(("request", request)) }
        if let hop { children.append(("hop", hop)) }
        if let statusCode { children.append(("statusCode", statusCode)) }
        if let bodySnippet { children.append(("bodySnippet", Self.singleLine(bodySnippet))) }
        if let codingPath { children.append(("codingPath", Self.singleLine(codingPath))) }
        if let attempts { children.append(("attempts", attempts)) }
        if let underlyingError { children.append(("underlyingError", "\(type(of: underlyingError))")) }
        return Mirror(self, children: children, displayStyle: .struct)
    }

    /// The attempt's deadline passed: `timeout`, rounded with its unit.
    static func deadlinePassed(_ timeout: Duration) -> EndpointError {
        EndpointError(.timedOut, "no complete response within the deadline of \(timeout.readable) (timeout)")
    }

    /// This error with every occurrence of `secrets` replaced in its message, body snippet, coding path and
    /// cURL command: the credential values a request carried, which a server may echo back.
    func redactingSecrets(_ secrets: Set<String>) -> EndpointError {
        guard !secrets.isEmpty else { return self }
        let ordered = Self.scrubOrder(secrets)
        func scrub(_ text: String) -> String {
            ordered.reduce(text) { $0.replacingScalars(of: $1, with: Redaction.placeholder) }
        }
        var error = self
        error.underlyingError = underlyingError.map { Self.scrubbing($0, with: scrub) }
        error.message = scrub(message)
        error.bodySnippet = bodySnippet.map { snippet in
            // Compared scalar by scalar, like `scrub`; a snippet cut at its limit ends in "…".
            let isCut = snippet.hasSuffix("…")
            let scalars = Array(snippet.unicodeScalars.dropLast(isCut ? 1 : 0))
            let scrubbed = Self.scrubbing(
                scalars,
                of: ordered.map { Array($0.unicodeScalars) },
                placeholder: Array(Redaction.placeholder.unicodeScalars),
                wasCut: isCut
            )
            return String(String.UnicodeScalarView(scrubbed)) + (isCut ? "…" : "")
        }
        error.body = body.map { body in
            // Byte by byte, so that a body that is not text is scrubbed too.
            Data(
                Self.scrubbing(
                    [UInt8](body),
                    of: ordered.map { Array($0.utf8) },
                    placeholder: Array(Redaction.placeholder.utf8),
                    wasCut: body.count == Self.bodyLimit
                )
            )
        }
        error.codingPath = codingPath.map(scrub)
        error.curlCommand = curlCommand.map(scrub)
        return error
    }

    /// The secrets worth replacing, longest first, so a token inside a longer secret ("Bearer <token>") is not
    /// half replaced.
    private static func scrubOrder(_ secrets: Set<String>) -> [String] {
        secrets.filter { $0.count >= 4 }.sorted { $0.count > $1.count }
    }

    /// `body` with every occurrence of `secrets` replaced, byte by byte; `nil` when it holds none.
    static func scrubbing(_ body: Data, of secrets: Set<String>) -> Data? {
        let ordered = scrubOrder(secrets).map { Array($0.utf8) }
        guard ordered.contains(where: { ResponseValidator.contains($0, in: body) }) else { return nil }
        return Data(
            scrubbing([UInt8](body), of: ordered, placeholder: Array(Redaction.placeholder.utf8), wasCut: false)
        )
    }

    /// An underlying error whose text holds no secret: a `URLError` keeps its code and loses the URLs of its
    /// user info (they hold the request's query, secret values included); a `DecodingError` keeps its case and
    /// path with its debug description scrubbed; any other error whose printed form holds a secret is replaced
    /// by a ``RedactedError`` that prints it scrubbed.
    private static func scrubbing(_ error: any Error, with scrub: (String) -> String) -> any Error {
        if let urlError = error as? URLError {
            let description = (urlError.userInfo[NSLocalizedDescriptionKey] as? String).map(scrub)
            return URLError(urlError.code, userInfo: description.map { [NSLocalizedDescriptionKey: $0] } ?? [:])
        }
        if let decodingError = error as? DecodingError {
            func scrubbed(_ context: DecodingError.Context) -> DecodingError.Context {
                DecodingError.Context(codingPath: context.codingPath, debugDescription: scrub(context.debugDescription))
            }
            switch decodingError {
            case .typeMismatch(let type, let context): return DecodingError.typeMismatch(type, scrubbed(context))
            case .valueNotFound(let type, let context): return DecodingError.valueNotFound(type, scrubbed(context))
            case .keyNotFound(let key, let context): return DecodingError.keyNotFound(key, scrubbed(context))
            case .dataCorrupted(let context): return DecodingError.dataCorrupted(scrubbed(context))
            @unknown default: break
            }
        }
        let printed = String(reflecting: error)
        let scrubbed = scrub(printed)
        guard scrubbed != printed else { return error }
        return RedactedError(typeName: "\(type(of: error))", description: scrubbed)
    }

    /// `text` with every occurrence of each secret replaced by `placeholder`; when the text was cut at a limit,
    /// a tail that is the start of a secret (3 elements or more) is replaced too, since it shows most of it.
    private static func scrubbing<Element: Equatable>(
        _ text: [Element],
        of secrets: [[Element]],
        placeholder: [Element],
        wasCut: Bool
    ) -> [Element] {
        var text = secrets.reduce(text) { $0.replacing($1, with: placeholder) }
        guard wasCut else { return text }
        for secret in secrets {
            for length in stride(from: min(secret.count - 1, text.count), through: 3, by: -1)
            where text.suffix(length).elementsEqual(secret.prefix(length)) {
                text.removeLast(length)
                return text + placeholder
            }
        }
        return text
    }

    /// The server error a ``ResponseValidator`` decoded, when it is a `T`.
    ///
    ///     do {
    ///         _ = try await client.response(for: .item(42))
    ///     } catch {
    ///         if let apiError = error.serverError(as: APIError.self) { print(apiError.message) }
    ///     }
    public func serverError<T: Error>(as type: T.Type) -> T? {
        underlyingError as? T
    }

    private static func snippet(of body: Data) -> String? {
        guard !body.isEmpty else { return nil }
        var text = String(decoding: body.prefix(bodySnippetLimit), as: UTF8.self)
        if body.count > bodySnippetLimit { text += "…" }
        return text
    }

    /// `text` with line breaks and other control characters escaped.
    static func singleLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: Self.needsEscape) else { return text }
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\r": escaped += "\\r"
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            case _ where Self.needsEscape(scalar): escaped += "\\u{\(String(scalar.value, radix: 16))}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value)
            || scalar == "\u{2028}" || scalar == "\u{2029}"
    }
}
