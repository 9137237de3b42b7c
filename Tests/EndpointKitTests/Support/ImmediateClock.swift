@testable import EndpointKit

/// A clock whose sleeps return at once, moving its time to their deadline and recording how long they were asked
/// to be: for tests that check the waits, not their order. `TestClock` is the one that waits until told.
final class ImmediateClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let state = Locked((now: Instant(offset: .zero), sleeps: [Duration]()))

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .zero }

    /// Every sleep asked for, in order.
    var sleeps: [Duration] { state.withLock { $0.sleeps } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.sleeps.append(state.now.duration(to: deadline))
            state.now = deadline
        }
    }
}
