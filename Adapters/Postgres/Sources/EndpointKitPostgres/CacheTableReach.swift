#if Postgres
/// Whether a call of ``PostgresCacheStorage`` uses the shared table or does without it, as one value moved on by one
/// pure transition: after a trip fails, calls skip the table (the in-memory tier only) for the retry interval, then
/// one call tries it again while the others go on skipping; an answer brings every call back.
struct CacheTableReach: Sendable, Hashable {
    /// Microseconds of the process's clock.
    typealias Time = Int64

    /// How long calls skip the table after a failure, in microseconds.
    let retryInterval: Time
    /// Until when calls skip the table; `nil` while it answers.
    private(set) var skippingUntil: Time?

    /// What happened.
    enum Event: Sendable, Hashable {
        /// A call asks whether to use the table.
        case route(now: Time)
        /// A trip failed (an error, or no answer in time).
        case failed(now: Time)
        /// A trip was answered.
        case answered
    }

    /// What a call does.
    enum Route: Sendable, Hashable {
        case useTable
        case skipTable
    }

    init(retryInterval: Time) {
        self.retryInterval = max(1, retryInterval)
    }

    /// Moves on by `event`; for a ``Event/route(now:)``, says what the call does.
    @discardableResult
    mutating func apply(_ event: Event) -> Route? {
        switch event {
        case .route(let now):
            guard let until = skippingUntil else { return .useTable }
            guard now >= until else { return .skipTable }
            // One call tries again; the others skip until it fails (a new interval) or is answered.
            skippingUntil = now + retryInterval
            return .useTable
        case .failed(let now):
            skippingUntil = now + retryInterval
            return nil
        case .answered:
            skippingUntil = nil
            return nil
        }
    }
}
#endif
