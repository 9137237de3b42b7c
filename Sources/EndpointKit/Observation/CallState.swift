/// What one call shares across its attempts: the one attempt counter, its observers and how to redact.
final class CallState: Sendable {
    let observers: [any ExchangeObserver]
    let redactor: Redactor
    private let attempts = Locked(0)

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

    /// Whether anyone listens; events are not even built otherwise.
    var isObserved: Bool { !observers.isEmpty }

    func emit(_ event: @autoclosure () -> ExchangeEvent) {
        guard isObserved else { return }
        let event = event()
        for observer in observers { observer.observe(event) }
    }
}
