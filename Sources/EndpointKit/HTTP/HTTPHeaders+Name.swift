extension HTTPHeaders {
    /// A header name; names compare and hash without regard to case, and are sent as written.
    public struct Name: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
        /// The name as written.
        public let rawValue: String

        /// Creates a name, sent exactly as written.
        public init(_ rawValue: String) {
            self.rawValue = rawValue
        }

        /// Creates a name from a string literal such as `"X-Request-ID"`.
        public init(stringLiteral value: String) { self.init(value) }

        /// The name as written.
        public var description: String { rawValue }

        /// Whether two names are the same header: equal but for ASCII case.
        public static func == (lhs: Name, rhs: Name) -> Bool {
            // Compared byte by byte in place, without lowercased copies: names are compared on every request.
            var left = lhs.rawValue
            var right = rhs.rawValue
            guard left.utf8.count == right.utf8.count else { return false }
            return left.withUTF8 { left in
                right.withUTF8 { right in
                    for index in left.indices where left[index] != right[index] {
                        guard Self.folded(left[index]) == Self.folded(right[index]) else { return false }
                    }
                    return true
                }
            }
        }

        /// Hashes the name without regard to ASCII case.
        public func hash(into hasher: inout Hasher) {
            for byte in rawValue.utf8 { hasher.combine(Self.folded(byte)) }
            hasher.combine(rawValue.utf8.count)
        }

        private static func folded(_ byte: UInt8) -> UInt8 {
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
        }

        /// Whether only the transport may set this header.
        var isManagedByTransport: Bool {
            // Only the names of the same length are compared: this runs for every header written, and hashing a
            // name costs more.
            switch rawValue.utf8.count {
            case 2: return self == "te"
            case 4: return self == "host"
            case 6: return self == "expect"
            case 7: return self == "upgrade"
            case 10: return self == "connection" || self == "keep-alive"
            case 14: return self == "content-length"
            case 17: return self == "transfer-encoding"
            default: return false
            }
        }

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
        /// `Content-Encoding`.
        public static let contentEncoding = Name("Content-Encoding")
        /// `Content-Type`.
        public static let contentType = Name("Content-Type")
        /// `Cookie`; always redacted in descriptions.
        public static let cookie = Name("Cookie")
        /// `ETag`.
        public static let eTag = Name("ETag")
        /// `Host`; set by the transport, never by callers.
        public static let host = Name("Host")
        /// `Idempotency-Key`, which lets a server recognise a request sent twice.
        public static let idempotencyKey = Name("Idempotency-Key")
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
        /// `Age`: how long a response has been in caches, in seconds.
        public static let age = Name("Age")
        /// `Content-Location`.
        public static let contentLocation = Name("Content-Location")
        /// `Date`: when the response was made.
        public static let date = Name("Date")
        /// `Expires`: when a response stops being fresh.
        public static let expires = Name("Expires")
        /// `If-Match`.
        public static let ifMatch = Name("If-Match")
        /// `If-Range`.
        public static let ifRange = Name("If-Range")
        /// `If-Unmodified-Since`.
        public static let ifUnmodifiedSince = Name("If-Unmodified-Since")
        /// `Link` (RFC 8288): related resources, such as the next page.
        public static let link = Name("Link")
        /// `Pragma`: `no-cache` from HTTP/1.0.
        public static let pragma = Name("Pragma")
        /// `Vary`: the request headers a response depends on.
        public static let vary = Name("Vary")
        /// `User-Agent`.
        public static let userAgent = Name("User-Agent")
    }
}
