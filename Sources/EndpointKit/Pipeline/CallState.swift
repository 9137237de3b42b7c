/// What one call shares across its attempts: the one attempt counter, its observers, the requests it sent
/// (to know which secrets a server may echo back), and its timings on the client's clock.
final class CallState: Sendable {
    let observers: [any ExchangeObserver]
    let redactor: Redactor
    /// Where the endpoint's route comes from, for ``RequestContext/urlTemplate``: kept here, once per call, so
    /// that the contexts copied along the way carry no more than before.
    let route: PreparedCall.Route?
    /// Started with the call, on the client's clock.
    private let stopwatch: Stopwatch
    /// Whether the clock is real time, so that a transport's note of when a head arrived can be read on it.
    private let isRealTime: Bool
    /// What changes during the call, behind one lock.
    private let state = Locked(State())

    private struct State {
        /// Attempts started.
        var attempts = 0
        /// Every hop's request, kept (copy-on-write, so nearly free) to know which secrets a server may echo back:
        /// the first, and those after it (most calls send one, kept without an array).
        var first: TransportRequest?
        var later: [TransportRequest] = []
        /// When the last head arrived, since the call started.
        var lastHead: Duration?
        /// Requests that went on the wire, counted for instruments only.
        var sends = 0
    }

    init(
        observers: [any ExchangeObserver],
        redactor: Redactor,
        clock: any Clock<Duration>,
        isRealTime: Bool? = nil,
        route: PreparedCall.Route? = nil
    ) {
        self.observers = observers
        self.redactor = redactor
        self.route = route
        // Whether the clock is the real one, when the caller knows already: a dynamic cast less per call.
        let isRealTime = isRealTime ?? (clock is ContinuousClock)
        stopwatch = Stopwatch(clock, isContinuous: isRealTime)
        self.isRealTime = isRealTime
    }

    /// Notes that a hop's head arrived: now, or at `instant` when the transport noted it (it may have collected
    /// the body since), which is read only when the client runs on real time.
    func headArrived(_ instant: ContinuousClock.Instant?) {
        var elapsed = stopwatch.elapsed
        if isRealTime, let instant { elapsed -= max(.zero, instant.duration(to: .now)) }
        state.withLock { $0.lastHead = elapsed }
    }

    /// From the start of the call to the last head, on the client's clock.
    var timeToFirstByte: Duration { state.withLock { $0.lastHead } ?? stopwatch.elapsed }

    /// From the start of the call to now, on the client's clock.
    var elapsed: Duration { stopwatch.elapsed }

    /// How many attempts have started.
    var attemptCount: Int { state.withLock { $0.attempts } }

    /// Starts an attempt and returns its number, from 1.
    func beginAttempt() -> Int {
        state.withLock { state in
            state.attempts += 1
            return state.attempts
        }
    }

    /// Counts a request going on the wire and returns how many went before it.
    func beginSend() -> Int {
        state.withLock { state in
            defer { state.sends += 1 }
            return state.sends
        }
    }

    /// Notes a request about to be sent.
    func remember(_ request: TransportRequest) {
        state.withLock { state in
            if state.first == nil { state.first = request } else { state.later.append(request) }
        }
    }

    /// The request sent last: the hop that answered, or failed, after any redirects.
    var lastRequest: TransportRequest? { state.withLock { $0.later.last ?? $0.first } }

    /// The credential values the call's requests carried: secret header values (and their token after a
    /// scheme such as `Bearer`), secret query values and URL passwords.
    var secrets: Set<String> {
        let (first, later) = state.withLock { ($0.first, $0.later) }
        var secrets = Set<String>()
        for request in (first.map { [$0] } ?? []) + later { secrets.formUnion(redactor.secrets(of: request)) }
        return secrets
    }

    /// Whether anyone listens; events are not even built otherwise.
    var isObserved: Bool { !observers.isEmpty }

    func emit(_ event: @autoclosure () -> ExchangeEvent) {
        guard isObserved else { return }
        let event = event()
        for observer in observers { observer.observe(event) }
    }
}
