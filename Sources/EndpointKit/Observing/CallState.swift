/// What one call shares across its attempts: the one attempt counter, its observers, and the requests it sent
/// (to know which secrets a server may echo back), redacted by the client's redactor.
final class CallState: Sendable {
    let observers: [any ExchangeObserver]
    let redactor: Redactor
    private let attempts = Locked(0)
    /// Every hop's request, kept (copy-on-write, so nearly free) to know which secrets a server may echo back.
    private let sent = Locked([TransportRequest]())

    init(observers: [any ExchangeObserver], redactor: Redactor) {
        self.observers = observers
        self.redactor = redactor
    }

    /// How many attempts have started.
    var attemptCount: Int { attempts.withLock { $0 } }

    /// Starts an attempt and returns its number, from 1.
    func beginAttempt() -> Int {
        attempts.withLock { count in
            count += 1
            return count
        }
    }

    /// Notes a request about to be sent.
    func remember(_ request: TransportRequest) {
        sent.withLock { $0.append(request) }
    }

    /// The request sent last: the hop that answered, or failed, after any redirects.
    var lastRequest: TransportRequest? { sent.withLock { $0.last } }

    /// The credential values the call's requests carried: secret header values (and their token after a
    /// scheme such as `Bearer`), secret query values and URL passwords.
    var secrets: Set<String> {
        let requests = sent.withLock { $0 }
        var secrets = Set<String>()
        for request in requests { secrets.formUnion(redactor.secrets(of: request)) }
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
