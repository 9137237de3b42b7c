import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default ``Transport``: sends requests with a `URLSession` it owns and streams each response body as it
/// arrives.
///
/// The session is configured for server and app code alike: an ephemeral configuration, no cookie storage
/// and no URL cache (on Linux the shared session persists cookies to a file the next process reads, and on
/// Apple platforms a shared cache can serve one user's response to another), and one session-level
/// delegate that hands every redirect back as a response, so that ``EndpointClient`` follows it by its
/// ``RedirectPolicy`` (Linux URLSession forwards `Authorization` everywhere, and never asks per-task
/// delegates about redirects).
///
///     let client = EndpointClient(environment: environment, transport: URLSessionTransport())
///
/// What it guarantees beyond the ``Transport`` contract:
/// - **A bounded queue in front of the session.** At most `httpMaximumConnectionsPerHost` requests per host
///   are handed to URLSession at once; the others wait in EndpointKit's own line, so a call cancelled while
///   waiting never reaches the network.
/// - **Cancellation releases the caller first**; the `URLSessionTask` is torn down afterwards on the session's
///   delegate queue.
/// - **Idle timeouts** are rounded up to whole seconds (at least 1), because Linux URLSession truncates
///   fractions and fails every request at once when given less than a second. The total deadline of an
///   attempt is ``EndpointClient``'s, and exact.
/// - **Request bodies**: in memory and file bodies are sent with a `Content-Length`; an `InputStream` body
///   chunked; a body of async chunks is first written to a temporary file (URLSession cannot read an async
///   sequence), so memory stays bounded, and the file is deleted when the transfer ends.
/// - **Non-idempotent requests are sent once.** Linux URLSession (libcurl) silently sends a request again when
///   the reused keep-alive connection it went out on closes without an answer, after stalling until the
///   timeout: a `POST` reaches the server twice. So a `POST`, `PATCH` or other non-idempotent request without
///   an `Idempotency-Key` header goes out on a fresh connection of its own (a session of its own, whose one
///   request carries `Connection: close`), which libcurl never reuses nor resends; it costs a connection set-up
///   (a TLS handshake for https) per such request. Turn it off with
///   `sendsNonIdempotentRequestsOnFreshConnections: false`, or add ``IdempotencyKey`` so the server can
///   recognise a repeat. Apple's URLSession decides about connection
///   reuse itself and may ignore `Connection: close`; there the guarantee rests on an `Idempotency-Key`.
/// - **Downloads go on connections of their own.** Linux URLSession cannot see bytes a server sends past a
///   response's `Content-Length`, and would hand them to the next request on the same connection as its answer;
///   a download (``EndpointClient/download(for:using:to:)``) is neither sent on a connection another request used
///   nor leaves one behind. Ordinary requests share connections and rely on the server not to smuggle bytes: for
///   servers you do not trust, use `AsyncHTTPClientTransport`, which drops such a connection.
/// - **Informational responses** (`100 Continue`, `103 Early Hints`) are skipped for the final one. A `101
///   Switching Protocols` nobody asked for fails with ``EndpointError/Kind/transportFailed`` and status 101 as
///   soon as Linux URLSession reports it: when bytes follow it, or else once the idle timeout passes.
/// - **CPU while waiting.** Linux URLSession keeps about 80 % of a core busy per session while any of its
///   requests waits for bytes (a FoundationNetworking defect; see the Streaming article for the figures). The
///   pooled session pays it once for all its requests; each one-request session pays it while its request waits.
///   For long-lived streams, use `AsyncHTTPClientTransport`.
/// - **Compressed responses** are inflated by URLSession before EndpointKit counts them: the response size
///   limit applies to the inflated bytes, and URLSession may inflate a chunk beyond it before the transfer
///   stops.
public final class URLSessionTransport: Transport {
    /// The session requests are sent through.
    public let session: URLSession
    /// The delegate that streams bodies, when the transport owns its session.
    private let delegate: SessionDelegate?
    /// The configuration of the one-request sessions that downloads and non-idempotent requests go out on, each
    /// on a fresh connection; `nil` when the session is yours.
    private let freshConfiguration: URLSessionConfiguration?
    private let sendsNonIdempotentRequestsOnFreshConnections: Bool
    /// The line of requests waiting for a connection slot, per host, when the transport owns its session.
    private let queue: HostQueue?
    /// The session's `httpAdditionalHeaders`: a request field with the same name and value is left to the session
    /// to add, instead of being written into every `URLRequest` (a bridged write that costs about 12,000
    /// instructions per header on Linux).
    private let sessionHeaders: [HTTPHeaders.Field]

    /// Creates a transport with its own session built from `configuration`.
    ///
    /// - Parameters:
    ///   - configuration: The session's configuration; ``defaultConfiguration()`` unless given. Its
    ///     `httpMaximumConnectionsPerHost` also sets how many requests per host EndpointKit hands to URLSession
    ///     at once.
    ///   - sendsNonIdempotentRequestsOnFreshConnections: Whether a non-idempotent request without an
    ///     `Idempotency-Key` header gets a connection of its own, so that URLSession never sends it twice;
    ///     `true` unless given.
    public init(
        configuration: URLSessionConfiguration = URLSessionTransport.defaultConfiguration(),
        sendsNonIdempotentRequestsOnFreshConnections: Bool = true
    ) {
        let delegate = SessionDelegate()
        self.delegate = delegate
        queue = HostQueue(limit: max(1, configuration.httpMaximumConnectionsPerHost))
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        sessionHeaders = Self.fields(of: configuration.httpAdditionalHeaders)
        // Copied: a session copies its configuration too, and the caller may change theirs afterwards.
        freshConfiguration = (configuration.copy() as? URLSessionConfiguration) ?? configuration
        self.sendsNonIdempotentRequestsOnFreshConnections = sendsNonIdempotentRequestsOnFreshConnections
    }

    /// Creates a transport that sends through `session`, which you keep configuring and own.
    ///
    /// Bodies are then read whole by `URLSession.data(for:)` before they are returned, and a session you pass
    /// follows redirects by its own delegate's rules before ``EndpointClient`` sees them; give it a delegate
    /// that declines redirects to keep EndpointKit's ``RedirectPolicy`` in charge.
    public init(session: URLSession) {
        self.session = session
        self.delegate = nil
        self.freshConfiguration = nil
        self.sendsNonIdempotentRequestsOnFreshConnections = false
        self.queue = nil
        sessionHeaders = Self.fields(of: session.configuration.httpAdditionalHeaders)
    }

    private static func fields(of headers: [AnyHashable: Any]?) -> [HTTPHeaders.Field] {
        (headers ?? [:]).compactMap { name, value in
            guard let name = name as? String, let value = value as? String else { return nil }
            return HTTPHeaders.Field(name: HTTPHeaders.Name(name), value: value)
        }
    }

    deinit {
        if delegate != nil { session.finishTasksAndInvalidate() }
    }

    /// An ephemeral configuration without cookies or a URL cache, whose sessions add EndpointKit's `User-Agent`
    /// (``RequestDefaults/userAgent``) to each request that does not set its own.
    ///
    /// Turning cookies off also spares Linux URLSession from parsing `Set-Cookie` on every response, a
    /// measurable share of its time per request.
    public static func defaultConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpAdditionalHeaders = ["User-Agent": RequestDefaults.userAgent]
        return configuration
    }

    /// `true` for a transport that owns its session: each exchange has an exact timer of its own for
    /// ``TransportOptions/timeout``; a session you pass has none.
    public var enforcesTimeout: Bool { delegate != nil }

    /// Sends `request` and returns as soon as the response head arrives, the body streaming from the network
    /// (or written to the options' sink as it arrives); or, when the options collect the body, once the whole
    /// body has arrived.
    public func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse {
        let idleTimeout = Self.idleTimeout(of: options)
        var urlRequest = Self.makeURLRequest(request, idleTimeout: idleTimeout.seconds, leaving: sessionHeaders)
        guard let pooledDelegate = delegate, let queue else {
            return try await sendThroughForeignSession(request, urlRequest, idleTimeout: idleTimeout)
        }
        // A body of async chunks is written to disk before the request takes a connection slot.
        var spooledBody: URL?
        if case .chunks? = request.body?.storage {
            do {
                spooledBody = try await Self.spool(request.body)
            } catch {
                throw Self.unreadableBody(error)
            }
        }
        let host = Origin(request.url).key
        do {
            try await queue.acquire(host)
        } catch {
            if let spooledBody { try? FileManager.default.removeItem(at: spooledBody) }
            throw EndpointError(.cancelled, "the task was cancelled while waiting for a connection slot")
        }
        let oneRequestSession = route(request, options: options)
        let (session, delegate) = oneRequestSession ?? (self.session, pooledDelegate)
        if oneRequestSession != nil { urlRequest.setValue("close", forHTTPHeaderField: "Connection") }
        let task: URLSessionTask
        do {
            if let spooledBody {
                task = session.uploadTask(with: urlRequest, fromFile: spooledBody)
            } else {
                switch request.body?.storage {
                case .data(let data)?:
                    urlRequest.httpBody = data
                    task = session.dataTask(with: urlRequest)
                case .file(let file)?:
                    task = session.uploadTask(with: urlRequest, fromFile: file)
                case .inputStream(let makeStream)?:
                    urlRequest.httpBodyStream = try makeStream()
                    task = session.dataTask(with: urlRequest)
                case .chunks?, nil:
                    task = session.dataTask(with: urlRequest)
                }
            }
        } catch {
            queue.release(host)
            if oneRequestSession != nil { session.invalidateAndCancel() }
            throw Self.unreadableBody(error)
        }
        let spooled = spooledBody
        let finished: @Sendable () -> Void = {
            queue.release(host)
            if let spooled { try? FileManager.default.removeItem(at: spooled) }
            // Its connection goes with it: no later request can be sent, or sent again, on it.
            if oneRequestSession != nil { session.finishTasksAndInvalidate() }
        }
        return try await delegate.run(task, sending: request, options: options, in: session, finished: finished)
    }

    /// A session of its own for a download or a non-idempotent request without an `Idempotency-Key`, or `nil`
    /// for the pooled one.
    ///
    /// A download goes alone because Linux URLSession cannot see bytes a server sends past a body's
    /// `Content-Length`: libcurl keeps the connection, and the next request on it reads them as its answer (a
    /// download reported success with 4 bytes a server had smuggled after the file before). A file is large
    /// and asked for once, so a connection of its own costs little.
    ///
    /// One session per request, not one shared session whose requests carry `Connection: close`: libcurl keeps a
    /// connection in its pool when the answer does not repeat `Connection: close` (Python's http.server, among
    /// others, closes without saying so), reuses it dead, and the request stalls until its timeout (6 to 20 of
    /// 1,000 concurrent POSTs, 64 in flight). A session's pool ends with the session, so the request is the only one
    /// its connection ever carries.
    private func route(_ request: TransportRequest, options: TransportOptions) -> (URLSession, SessionDelegate)? {
        guard let freshConfiguration else { return nil }
        var isDownload = false
        if case .write = options.body { isDownload = true }
        let mightBeResent =
            sendsNonIdempotentRequestsOnFreshConnections && !request.method.isIdempotent
            && !request.headers.contains(.idempotencyKey)
        guard isDownload || mightBeResent else { return nil }
        let delegate = SessionDelegate()
        return (URLSession(configuration: freshConfiguration, delegate: delegate, delegateQueue: nil), delegate)
    }

    /// A `URLRequest` for `request`, without its body; `idleTimeout` in seconds, or `nil` for URLSession's. A
    /// field that one of `sessionHeaders` repeats exactly is left for the session to add.
    static func makeURLRequest(
        _ request: TransportRequest,
        idleTimeout: TimeInterval?,
        leaving sessionHeaders: [HTTPHeaders.Field] = []
    ) -> URLRequest {
        var urlRequest = URLRequest(url: request.url)
        // GET is a URLRequest's method already; setting it again costs a bridged write per request.
        if request.method != .get { urlRequest.httpMethod = request.method.rawValue }
        urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
        if let idleTimeout { urlRequest.timeoutInterval = idleTimeout }
        let fields = Array(request.headers)
        for (index, field) in fields.enumerated() {
            // Repeated names are joined with ", " at their first field, as RFC 9110 allows for every field but
            // Set-Cookie. Compared pairwise: a request has a handful of fields, and hashing names costs more.
            if fields[..<index].contains(where: { $0.name == field.name }) { continue }
            var value = field.value
            var isRepeated = false
            for later in fields[(index + 1)...] where later.name == field.name {
                value += ", " + later.value
                isRepeated = true
            }
            if !isRepeated, sessionHeaders.contains(field) { continue }
            urlRequest.setValue(value, forHTTPHeaderField: field.name.rawValue)
        }
        return urlRequest
    }

    private func sendThroughForeignSession(
        _ request: TransportRequest,
        _ urlRequest: URLRequest,
        idleTimeout: (seconds: TimeInterval, setting: String)
    ) async throws -> TransportResponse {
        var urlRequest = urlRequest
        let data: Data
        let response: URLResponse
        do {
            switch request.body?.storage {
            case .file(let file)?:
                (data, response) = try await session.upload(for: urlRequest, fromFile: file)
            case .data(let body)?:
                urlRequest.httpBody = body
                (data, response) = try await session.data(for: urlRequest)
            case .inputStream(let makeStream)?:
                urlRequest.httpBodyStream = try makeStream()
                (data, response) = try await session.data(for: urlRequest)
            case .chunks?:
                let file = try await Self.spool(request.body)
                defer { try? FileManager.default.removeItem(at: file) }
                (data, response) = try await session.upload(for: urlRequest, fromFile: file)
            case nil:
                (data, response) = try await session.data(for: urlRequest)
            }
        } catch {
            throw Self.endpointError(from: error, afterHead: false, idleTimeout: idleTimeout)
        }
        guard let http = response as? HTTPURLResponse else {
            throw EndpointError(.transportFailed, "the response is not an HTTP response")
        }
        return TransportResponse(
            statusCode: http.statusCode,
            headers: Self.headers(of: http),
            url: http.url,
            data: data
        )
    }

    private static func unreadableBody(_ error: any Error) -> EndpointError {
        if let error = error as? EndpointError { return error }
        return EndpointError(.encodingFailed, "the request body could not be read: \(error)", underlyingError: error)
    }

    /// Writes a body of async chunks to a temporary file, since URLSession uploads only files, data and streams.
    private static func spool(_ body: TransportRequest.Body?) async throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "endpointkit-body-\(UUID().uuidString)"
        )
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
        }
        do {
            let handle = try FileHandle(forWritingTo: file)
            defer { try? handle.close() }
            if let body {
                for try await chunk in try body.makeChunks() { try handle.write(contentsOf: chunk) }
            }
            return file
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw error
        }
    }

    /// The idle timeout URLSession applies to a send, and the setting it comes from, for error messages.
    static func idleTimeout(of options: TransportOptions) -> (seconds: TimeInterval, setting: String) {
        // A body streamed past the deadline is bounded by the idle timeout alone: the total one must not stand in.
        if let idle = options.idleTimeout { return (wholeSeconds(idle.inSeconds), "idleTimeout") }
        if options.timeoutCoversBody, let timeout = options.timeout {
            return (wholeSeconds(timeout.inSeconds), "timeout")
        }
        return (60, "URLSession's default")
    }

    static func wholeSeconds(_ interval: TimeInterval) -> TimeInterval {
        guard interval > 0 else { return 60 }
        // Linux multiplies by 1000 into an Int: keep far from overflow; a day of silence is "forever" here.
        guard interval < 86_400 else { return 86_400 }
        return max(1, interval.rounded(.up))
    }

    static func headers(of response: HTTPURLResponse) -> HTTPHeaders {
        let all = response.allHeaderFields
        var fields: [HTTPHeaders.Field] = []
        fields.reserveCapacity(all.count)
        for (name, value) in all {
            guard let name = name.base as? String, let value = value as? String else { continue }
            fields.append(HTTPHeaders.Field(name: HTTPHeaders.Name(name), value: value))
        }
        return HTTPHeaders(fields)
    }

}
