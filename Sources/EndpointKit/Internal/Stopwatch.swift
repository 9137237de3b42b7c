/// Time elapsed since it was made, on any clock, including an existential `any Clock<Duration>`.
struct Stopwatch: Sendable {
    private enum Source: Sendable {
        /// The real clock, read directly: every call reads it a few times.
        case continuous(start: ContinuousClock.Instant)
        /// Any other clock, read through the generic reader made when it started.
        case other(@Sendable () -> Duration)
    }

    private let source: Source

    /// Starts on `clock`; `isContinuous` says it is a `ContinuousClock`, when the caller knows already (one
    /// dynamic cast less).
    init(_ clock: any Clock<Duration>, isContinuous: Bool? = nil) {
        if isContinuous ?? (clock is ContinuousClock) {
            source = .continuous(start: .now)
        } else {
            source = .other(Self.reader(clock))
        }
    }

    private static func reader<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    /// The time since the stopwatch was made.
    var elapsed: Duration {
        switch source {
        case .continuous(let start): start.duration(to: .now)
        case .other(let read): read()
        }
    }
}
