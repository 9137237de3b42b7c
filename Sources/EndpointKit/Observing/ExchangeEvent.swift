/// Something that happened during a call, as an ``ExchangeObserver`` sees it.
///
/// Every event carries the attempt it belongs to, numbered from 1 for the call: retries, validator
/// "send again" verdicts and replays after a token refresh each start a new attempt.
public enum ExchangeEvent: Sendable {
    /// An attempt starts.
    case attemptStarted(attempt: Int, request: RequestSummary)
    /// A response head arrived for one hop of an attempt.
    case responseReceived(attempt: Int, request: RequestSummary, statusCode: Int)
    /// Bytes of the request body went out: `sent` so far, of `expected` when the length is known (upload
    /// progress, reported by transports that can, such as ``URLSessionTransport``).
    case bytesSent(attempt: Int, sent: Int64, expected: Int64?)
    /// Bytes of a response body arrived: `received` so far, of `expected` when the length is known.
    case bytesReceived(attempt: Int, received: Int, expected: Int?)
    /// A redirect is followed from `from` to `to`.
    case redirected(attempt: Int, from: RequestSummary, to: RequestSummary, statusCode: Int)
    /// The client's ``HTTPCache`` took part in a hop: it served a stored response (``ResponseSource/cache``),
    /// served one after the server's 304 (``ResponseSource/revalidated``), or had nothing usable, so that the
    /// response came from the network (``ResponseSource/network``). Never carries the partition or a credential.
    case cache(attempt: Int, request: RequestSummary, source: ResponseSource)
    /// One hop ended, with a response or an error: the record ``ExchangeLogging`` prints.
    case exchangeCompleted(ExchangeRecord)
    /// The final body was decoded as `type`, or failed to with `error`.
    case decoded(request: RequestSummary, type: String, error: EndpointError?)
}
