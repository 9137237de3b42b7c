/// What one hop tells the call's observers: the cache's answers, the response head, the bytes, and one
/// ``ExchangeRecord`` of what went on the wire when the hop ends. Unobserved calls skip all of it.
struct HopObservation {
    let call: CallState?
    let redactor: Redactor
    let attempt: Int
    let hop: Int
    let isLogged: Bool
    /// Times the hop when someone observes it.
    private let start: Stopwatch?
    /// What went on the wire: the request, or the cache's conditional form of it.
    var outgoing: TransportRequest
    var statusCode: Int?
    var received = 0
    var isStreamed = false
    var source = ResponseSource.network

    init(request: TransportRequest, context: RequestContext, redactor: Redactor, attempt: Int, hop: Int) {
        call = context.call
        self.redactor = redactor
        self.attempt = attempt
        self.hop = hop
        isLogged = context.options.isLogged
        start = context.call?.isObserved == true ? Stopwatch(context.clock) : nil
        outgoing = request
    }

    var isObserved: Bool { start != nil }

    /// Ends the hop: one record, with the error it ended with, if any.
    func complete(_ error: EndpointError?) {
        guard let call, let start else { return }
        var record = ExchangeRecord(
            request: outgoing,
            redactor: redactor,
            statusCode: statusCode,
            bytesReceived: received,
            duration: start.elapsed,
            attempt: attempt,
            hop: hop,
            error: error
        )
        record.isStreamed = isStreamed
        record.source = source
        record.isLogged = isLogged
        call.emit(.exchangeCompleted(record))
    }

    /// A stored response handed back without sending: observed like an exchange, marked as the cache's.
    mutating func served(_ stored: TransportResponse, for request: TransportRequest) -> TransportResponse {
        call?.headArrived(nil)
        statusCode = stored.statusCode
        received = stored.bufferedBody.count
        source = stored.source
        cacheAnswered(stored.source, for: request)
        complete(nil)
        return stored
    }

    /// The cache answered `request` from what it stores (`source`).
    func cacheAnswered(_ source: ResponseSource, for request: TransportRequest) {
        call?.emit(.cache(attempt: attempt, request: redactor.summary(of: request), source: source))
    }

    /// The response head to `request` arrived.
    mutating func headArrived(_ response: TransportResponse, for request: TransportRequest) {
        call?.headArrived(response.headReceivedAt)
        statusCode = response.statusCode
        call?.emit(
            .responseReceived(attempt: attempt, request: redactor.summary(of: request), statusCode: response.statusCode)
        )
    }

    /// Reports body bytes as they arrive, when someone observes them.
    func bodyProgress(expected: Int?) -> ((Int) -> Void)? {
        guard isObserved, let call else { return nil }
        let attempt = self.attempt
        return { count in call.emit(.bytesReceived(attempt: attempt, received: count, expected: expected)) }
    }
}
