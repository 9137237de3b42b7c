import Foundation

/// What one hop tells the call's observers and instruments: the cache's answers, the response head, the bytes, and
/// one ``ExchangeRecord`` of what went on the wire when the hop ends. Unobserved, uninstrumented calls skip all of it.
struct HopObservation {
    let call: CallState?
    /// The call's context, kept for the instruments only (a hop without them copies none of it).
    let context: RequestContext?
    /// The client's ``HopInstrument``s, and what they track of this hop once it goes on the wire.
    let instruments: [any HopInstrument]
    private var trackers: [any HopTracker] = []
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

    init(
        request: TransportRequest,
        context: RequestContext,
        instruments: [any HopInstrument],
        redactor: Redactor,
        attempt: Int,
        hop: Int
    ) {
        call = context.call
        self.context = instruments.isEmpty ? nil : context
        self.instruments = instruments
        self.redactor = redactor
        self.attempt = attempt
        self.hop = hop
        isLogged = context.options.isLogged
        let isWatched = context.call?.isObserved == true || !instruments.isEmpty
        start = isWatched ? Stopwatch(context.clock) : nil
        outgoing = request
    }

    var isObserved: Bool { start != nil }

    /// The request goes on the wire: each instrument may add headers to it, and tracks it.
    mutating func willSend() {
        guard let context else { return }
        let exchange = ExchangeStart(
            request: redactor.summary(of: outgoing),
            url: outgoing.url,
            attempt: attempt,
            hop: hop,
            resendCount: call?.beginSend() ?? 0,
            context: context
        )
        for instrument in instruments {
            if let tracker = instrument.willSend(&outgoing, exchange) { trackers.append(tracker) }
        }
    }

    /// Ends the hop: one record, with the error it ended with, if any, for the trackers and (unless the request
    /// was refused before it was sent, `sent` false) the observers.
    mutating func complete(_ error: EndpointError?, sent: Bool = true) {
        guard let start else { return }
        let trackers = self.trackers
        self.trackers = []
        let observed = sent && call?.isObserved == true
        guard observed || !trackers.isEmpty else { return }
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
        if observed { call?.emit(.exchangeCompleted(record)) }
        for tracker in trackers { tracker.ended(record) }
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
        guard let context else { return }
        for instrument in instruments {
            instrument.cacheAnswered(source, for: redactor.summary(of: request), context: context)
        }
    }

    /// The response head to `request` arrived.
    mutating func headArrived(_ response: TransportResponse, for request: TransportRequest) {
        call?.headArrived(response.headReceivedAt)
        statusCode = response.statusCode
        for tracker in trackers {
            tracker.headReceived(
                statusCode: response.statusCode,
                headers: response.headers,
                protocolVersion: response.protocolVersion
            )
        }
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
