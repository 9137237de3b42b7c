extension HTTPHeaders {
    /// A header name; names compare and hash without regard to case, and are sent as written.
    public struct Name: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
        /// The name as written.
        public let rawValue: String
        private let canonical: String

        /// Creates a name, sent exactly as written.
        public init(_ rawValue: String) {
            self.rawValue = rawValue
            self.canonical = rawValue.lowercased()
        }

        /// Creates a name from a string literal such as `"X-Request-ID"`.
        public init(stringLiteral value: String) { self.init(value) }

        /// The name as written.
        public var description: String { rawValue }

        /// Whether two names are the same header.
        public static func == (lhs: Name, rhs: Name) -> Bool { lhs.canonical == rhs.canonical }

        /// Hashes the name without regard to case.
        public func hash(into hasher: inout Hasher) { hasher.combine(canonical) }

        /// Whether values under this name are credentials, redacted in descriptions, logs and cURL output.
        public var isSensitive: Bool { Self.sensitiveNames.contains(canonical) }

        /// Whether only the transport may set this header.
        var isManagedByTransport: Bool { Self.managedNames.contains(canonical) }

        private static let sensitiveNames: Set<String> = [
            "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key", "x-auth-token",
            "x-csrf-token", "x-xsrf-token",
        ]
        private static let managedNames: Set<String> = [
            "host", "content-length", "transfer-encoding", "connection", "te", "upgrade", "expect", "keep-alive",
        ]

        /// `Accept`.
        public static let accept = Name("Accept")
        /// `Accept-Encoding`.
        public static let acceptEncoding = Name("Accept-Encoding")
        /// `Accept-Language`.
        public static let acceptLanguage = Name("Accept-Language")
        /// `Authorization`; always redacted in descriptions.
        public static let authorization = Name("Authorization")
        /// `Cache-Control`.
        public static let cacheControl = Name("Cache-Control")
        /// `Content-Length`; set by the transport, never by callers.
        public static let contentLength = Name("Content-Length")
        /// `Content-Type`.
        public static let contentType = Name("Content-Type")
        /// `Cookie`; always redacted in descriptions.
        public static let cookie = Name("Cookie")
        /// `ETag`.
        public static let eTag = Name("ETag")
        /// `Host`; set by the transport, never by callers.
        public static let host = Name("Host")
        /// `If-Modified-Since`.
        public static let ifModifiedSince = Name("If-Modified-Since")
        /// `If-None-Match`.
        public static let ifNoneMatch = Name("If-None-Match")
        /// `Last-Modified`.
        public static let lastModified = Name("Last-Modified")
        /// `Location`.
        public static let location = Name("Location")
        /// `Proxy-Authorization`; always redacted in descriptions.
        public static let proxyAuthorization = Name("Proxy-Authorization")
        /// `Retry-After`.
        public static let retryAfter = Name("Retry-After")
        /// `Set-Cookie`; always redacted in descriptions.
        public static let setCookie = Name("Set-Cookie")
        /// `Transfer-Encoding`; set by the transport, never by callers.
        public static let transferEncoding = Name("Transfer-Encoding")
        /// `User-Agent`.
        public static let userAgent = Name("User-Agent")
    }
}
