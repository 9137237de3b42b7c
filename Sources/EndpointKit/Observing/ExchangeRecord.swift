import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One exchange (one hop of one attempt) and its outcome: what ``ExchangeEvent/exchangeCompleted(_:)`` carries
/// and ``ExchangeLogging`` prints.
public struct ExchangeRecord: Sendable, CustomStringConvertible, CustomReflectable {
    /// The request's method.
    public var method: HTTPMethod
    /// The request's URL and headers, redacted only when read: a record nobody prints costs no redaction.
    private let url: URL
    private let headers: HTTPHeaders
    private let redactor: Redactor
    /// The URL with secrets redacted.
    public var redactedURL: String { redactor.redactedString(for: url) }
    /// The request headers, sorted by name, with sensitive values replaced by `<redacted>`.
    public var requestHeaders: HTTPHeaders { redactor.redacted(headers) }
    /// The status, or `nil` when no response arrived.
    public var statusCode: Int?
    /// Bytes of request body sent, when its length is known; 0 for a stream of unknown length.
    public var bytesSent: Int
    /// Bytes of response body received; 0 for a streamed body, which the record does not wait for.
    public var bytesReceived: Int
    /// From handing the request on to receiving the response or error; for a streamed body, to its head.
    public var duration: Duration
    /// Whether the body is handed to the caller as it arrives (``EndpointClient/stream(for:using:)->StreamedResponse``,
    /// events, downloads): the record is made when the head arrives, so ``bytesReceived`` and ``duration`` cover
    /// the head only.
    public var isStreamed = false
    /// Where the response came from: the network, or the client's ``HTTPCache`` (with or without a 304).
    public var source = ResponseSource.network
    /// Which attempt this was, from 1.
    public var attempt: Int
    /// Which hop of the attempt this was: 0 for the first request, 1 after the first redirect.
    public var hop: Int
    /// The error, when no complete response arrived.
    public var error: EndpointError?
    /// Whether the endpoint wants to be logged (`options.isLogged`).
    var isLogged = true

    init(
        request: TransportRequest,
        redactor: Redactor,
        statusCode: Int?,
        bytesReceived: Int,
        duration: Duration,
        attempt: Int,
        hop: Int,
        error: EndpointError?
    ) {
        method = request.method
        url = request.url
        headers = request.headers
        self.redactor = redactor
        self.statusCode = statusCode
        bytesSent = request.body?.length ?? 0
        self.bytesReceived = bytesReceived
        self.duration = duration
        self.attempt = attempt
        self.hop = hop
        self.error = error
    }

    /// A mirror of the redacted fields only, so that `dump` never shows a secret the request carried.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "method": method, "redactedURL": redactedURL, "requestHeaders": requestHeaders,
                "statusCode": statusCode as Any, "bytesSent": bytesSent, "bytesReceived": bytesReceived,
                "isStreamed": isStreamed, "source": source, "duration": duration, "attempt": attempt, "hop": hop,
                "error": error as Any,
            ],
            displayStyle: .struct
        )
    }

    /// One line: `GET https://… → 200, 512 B in 12.3 ms (attempt 1)`, `→ 200, streamed, head in 12.3 ms`,
    /// `(attempt 1, from cache)` for a response the cache served, or `→ 304, 0 B … (attempt 1, revalidated)` for
    /// a conditional request whose 304 let the cache serve its stored response.
    public var description: String {
        let outcome = statusCode.map { "\($0)" } ?? "failed (\(error?.kind.description ?? "error"))"
        let shown = (duration.inSeconds * 10_000).rounded() / 10
        let hopNote = hop > 0 ? ", hop \(hop + 1)" : ""
        let size = isStreamed ? "streamed, head" : "\(bytesReceived) B"
        let sourceNote =
            switch source {
            case .network: ""
            case .cache: ", from cache"
            case .revalidated: ", revalidated"
            }
        return
            "\(method) \(redactedURL) → \(outcome), \(size) in \(shown) ms (attempt \(attempt)\(hopNote)\(sourceNote))"
    }
}
