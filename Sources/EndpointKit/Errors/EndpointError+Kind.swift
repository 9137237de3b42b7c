extension EndpointError {
    /// The diagnosis of an ``EndpointError``.
    ///
    /// A struct with static members rather than an enum, so that a later release can add a kind without
    /// breaking your `switch`; match the kinds you handle and add a `default`.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// The kind's name, e.g. `unacceptableStatus`.
        public let name: String

        /// Creates a kind; use the static members unless a custom transport needs its own.
        public init(_ name: String) { self.name = name }

        /// The kind's name.
        public var description: String { name }

        /// The request could not be built: an invalid base URL, path, method or header, or a kind's
        /// `prepare` failed. Nothing was sent.
        public static let invalidRequest = Kind("invalidRequest")
        /// The request body could not be encoded. Nothing was sent.
        public static let encodingFailed = Kind("encodingFailed")
        /// The transport failed before a complete response arrived: connection refused, host not found,
        /// connection lost.
        public static let transportFailed = Kind("transportFailed")
        /// No secure connection could be made: the server's certificate is not trusted (an unknown or untrusted
        /// CA, expired, for another host) or the TLS handshake failed. Nothing was sent, and sending again will
        /// not help, so it is never retried.
        public static let secureConnectionFailed = Kind("secureConnectionFailed")
        /// The response body was larger than the call's limit (``RequestDefaults/maximumResponseSize``); the
        /// transfer was stopped.
        public static let responseTooLarge = Kind("responseTooLarge")
        /// The attempt passed its deadline (``RequestDefaults/timeout``), or no byte arrived within the idle
        /// timeout (``RequestDefaults/idleTimeout``).
        public static let timedOut = Kind("timedOut")
        /// The calling task was cancelled; the transfer was stopped.
        public static let cancelled = Kind("cancelled")
        /// The server answered with a status outside 200–299; ``EndpointError/statusCode`` and
        /// ``EndpointError/bodySnippet`` say what it sent.
        public static let unacceptableStatus = Kind("unacceptableStatus")
        /// The body did not match the response type; ``EndpointError/codingPath`` says where.
        public static let decodingFailed = Kind("decodingFailed")
        /// A ``ResponseValidator`` rejected the response, e.g. for an error envelope in a 200 body, or asked
        /// for more retries than allowed; ``EndpointError/serverError(as:)`` returns the error it decoded.
        public static let responseRejected = Kind("responseRejected")
        /// The former name of ``responseRejected``, which read like an HTTP 5xx.
        @available(*, deprecated, renamed: "responseRejected")
        public static let serverError = responseRejected
        /// Credentials could not be obtained or refreshed, or the server answered 401 again to a request sent
        /// with a refreshed token (``EndpointError/statusCode`` is then 401).
        public static let authenticationFailed = Kind("authenticationFailed")
        /// A redirect was not followed: to another scheme, from https to http, or with a body that cannot be
        /// sent again.
        public static let redirectRefused = Kind("redirectRefused")
        /// The server asked to wait longer than the ``RetryPolicy`` allows (``RetryPolicy/maxRetryAfter``), by
        /// `Retry-After` or a rate limit's reset time; ``EndpointError/retryAfter`` says how long, and
        /// ``EndpointError/statusCode`` is the server's (e.g. 429 or 403). Or a ``RateLimiter`` held the request
        /// back (no status; nothing was sent): its next slot was further than its `maxWait`, its key is paused
        /// longer than that, its storage could not be reached, or slots kept being reached late.
        public static let rateLimited = Kind("rateLimited")
        /// The request allows only a stored response (``CacheDirectives/onlyIfCached-type.property``, or `only-if-cached` in its
        /// `Cache-Control`), and the client's ``HTTPCache`` holds none that it accepts. Nothing was sent.
        public static let notCached = Kind("notCached")
        /// A page sequence was sent to a next page it had already fetched (the same URL twice): the server's
        /// `Link`, cursor or page numbers go round in a loop. Iteration stops with this error.
        public static let paginationLoop = Kind("paginationLoop")
        /// A ``ModelLoader``'s batch endpoint answered without the model asked for; only the callers of that ID
        /// fail.
        public static let modelNotFound = Kind("modelNotFound")
        /// More redirects than the client's ``RedirectPolicy`` allows.
        public static let tooManyRedirects = Kind("tooManyRedirects")
        /// An ``Outbox`` could not take a write: its queue holds ``OutboxPolicy/maximumCount`` writes or
        /// ``OutboxPolicy/maximumSize`` bytes already, or its disk refused the file. Nothing was queued or shown.
        public static let outboxFull = Kind("outboxFull")
        /// An ``Outbox`` write waited longer than ``OutboxPolicy/maximumAge`` without reaching the server, and was
        /// rolled back.
        public static let writeExpired = Kind("writeExpired")
        /// An ``Outbox`` write waited longer than ``OutboxPolicy/maximumAge`` while a try of it may have reached the
        /// server without an answer: nobody knows whether the server applied it, so the stores that show it ask the
        /// server again rather than roll it back.
        public static let writeOutcomeUnknown = Kind("writeOutcomeUnknown")
        /// The database an outbox keeps its writes in (EndpointKitPostgres) could not be used: unreachable, a
        /// statement it refused, or a schema newer than this EndpointKit. The message says which; a write whose
        /// enqueue failed this way was not queued, and the caller's transaction should not commit.
        public static let outboxStorageFailed = Kind("outboxStorageFailed")
        /// A database that keeps state a fleet shares (EndpointKitPostgres's rate limits) could not be used:
        /// unreachable, a statement it refused, or a schema newer than this EndpointKit. The message says which.
        public static let storageFailed = Kind("storageFailed")
    }
}
