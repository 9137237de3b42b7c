/// Time elapsed since it was made, on any clock, including an existential `any Clock<Duration>`.
struct Stopwatch: Sendable {
    private let read: @Sendable () -> Duration

    init(_ clock: any Clock<Duration>) {
        read = Self.reader(clock)
    }

    private static func reader<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    /// The time since the stopwatch was made.
    var elapsed: Duration { read() }
}
