import Foundation

/// What one send needs besides the HTTP request: how long it may take, what to do with the response body, and
/// where upload progress goes.
///
/// The client makes one for every hop and hands it to ``Transport/send(_:options:)`` beside the
/// ``TransportRequest``; middleware never see it, so a step that changes the request cannot change how it is
/// sent by mistake.
public struct TransportOptions: Sendable {
    /// How long this hop may take, or `nil` for no limit: with ``ResponseBodyHandling/collect(upTo:)`` up to the
    /// last byte of the body, otherwise up to the response head (a streamed body is bounded by
    /// ``idleTimeout`` alone).
    ///
    /// It is the time left of the attempt's one deadline when the hop starts. A transport whose
    /// ``Transport/enforcesTimeout`` is `true` must fail the hop with ``EndpointError/Kind/timedOut`` once it
    /// passes; otherwise the client enforces it and a transport may use it to size timers of its own.
    public var timeout: Duration?
    /// The longest the transport may wait without receiving a byte, or `nil` for the transport's default.
    public var idleTimeout: Duration?
    /// What the caller does with the response body.
    public var body: ResponseBodyHandling
    /// Called by a transport that can report upload progress, as the body goes out: the bytes sent so far and
    /// the total when known; `nil` when nobody listens.
    public var uploadProgress: (@Sendable (_ sent: Int64, _ expected: Int64?) -> Void)?

    /// Creates options; the defaults stream the body with no limit of time or memory.
    public init(
        timeout: Duration? = nil,
        idleTimeout: Duration? = nil,
        body: ResponseBodyHandling = .stream(bufferLimit: nil),
        uploadProgress: (@Sendable (_ sent: Int64, _ expected: Int64?) -> Void)? = nil
    ) {
        self.timeout = timeout
        self.idleTimeout = idleTimeout
        self.body = body
        self.uploadProgress = uploadProgress
    }

    /// Whether ``timeout`` runs until the body's last byte (the caller collects it) rather than the head.
    public var timeoutCoversBody: Bool {
        if case .collect = body { return true }
        return false
    }
}

/// What the caller does with a response body, so that a transport can do the cheapest thing that serves it.
public enum ResponseBodyHandling: Sendable {
    /// The caller reads the whole body, up to `limit` bytes. A transport may read it before returning (one
    /// wake-up of the caller instead of two), failing with ``EndpointError/Kind/responseTooLarge`` past the limit.
    case collect(upTo: Int)
    /// The caller reads the body as it arrives. A transport that cannot slow a server down (Linux URLSession)
    /// holds at most `bufferLimit` bytes for a reader that fell behind, then fails the body with
    /// ``EndpointError/Kind/responseTooLarge``; `nil` for no limit.
    case stream(bufferLimit: Int?)
    /// The body goes to a writer chosen from the head (a download's file), on the transport's thread as chunks
    /// arrive, so that nothing waits in memory while the caller wakes up. A transport that cannot call it
    /// streams the body instead (as ``stream(bufferLimit:)`` with no limit), and the client writes it.
    case write(to: BodySink)
}

/// Where a written body goes: made by the client for downloads, and by tests of a transport.
public struct BodySink: Sendable {
    /// From a response's status and headers, the function that receives its body's chunks, or `nil` to leave
    /// the body to its reader.
    let open: @Sendable (_ statusCode: Int, _ headers: HTTPHeaders) -> (@Sendable (Data) throws -> Void)?

    /// Creates a sink from `open`, asked once per response head for the function that receives its body's chunks,
    /// or `nil` to leave the body to its reader.
    public init(
        _ open: @escaping @Sendable (_ statusCode: Int, _ headers: HTTPHeaders) -> (@Sendable (Data) throws -> Void)?
    ) {
        self.open = open
    }

    /// The writer for a response with `statusCode` and `headers`, or `nil` to leave its body to the reader.
    public func writer(statusCode: Int, headers: HTTPHeaders) -> (@Sendable (Data) throws -> Void)? {
        open(statusCode, headers)
    }
}
