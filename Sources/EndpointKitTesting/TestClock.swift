import EndpointKit

/// A clock for tests that moves only when the test says so: sleeps wait until ``advance(by:)`` passes their
/// deadline, so deadlines, retry backoff and throttled waits are tested without real time.
///
///     let clock = TestClock()
///     let transport = StubTransport(replies: [.json(#"{"id": 1, "name": "tea"}"#)])
///     let client = EndpointClient(environment: environment, transport: transport, clock: clock)
///     async let result = client.response(for: .item(1))
///     try await clock.waitForSleepers(1)      // the attempt's deadline timer is waiting
///     clock.advance(by: .seconds(61))         // now it fires
///
/// Every sleep is recorded in ``sleeps``. A sleeping task that is cancelled wakes at once with
/// `CancellationError`. Every wait for a sleeper gives up after a timeout of real time, throwing
/// ``WaitTimedOut`` with the sleeps pending, so a test waiting for the wrong thing fails instead of hanging.
public final class TestClock: Clock, Sendable {
    /// A point on a ``TestClock``: the time since it started.
    public struct Instant: InstantProtocol {
        /// The time since the clock started.
        public var offset: Duration

        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        /// The time from this instant to `other`.
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        /// Whether `lhs` comes first.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [UInt64: Sleeper] = [:]
        var nextID: UInt64 = 0
        var sleeps: [Duration] = []
        var watchers: [UInt64: (isReady: @Sendable (State) -> Bool, continuation: CheckedContinuation<Bool, Never>)] =
            [:]
    }

    private let state = Locked(State())

    /// Creates a clock at offset zero.
    public init() {}

    /// The current instant.
    public var now: Instant { state.withLock { $0.now } }

    /// Zero: the clock moves only by ``advance(by:)``.
    public var minimumResolution: Duration { .zero }

    /// Every sleep asked for so far, as durations from the instant it was asked, in order.
    public var sleeps: [Duration] { state.withLock { $0.sleeps } }

    /// How many tasks are sleeping now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Sleeps until ``advance(by:)`` reaches `deadline`; returns at once for a deadline already passed.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    state.sleeps.append(state.now.duration(to: deadline))
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return nil
                }
                if let outcome {
                    continuation.resume(with: outcome)
                } else {
                    notifyWatchers()
                }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward and wakes every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.now = state.now.advanced(by: duration)
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers.removeValue(forKey: id) }
            return due.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    /// A wait on a ``TestClock`` that did not come true in time; its description lists the pending sleeps, so a
    /// test that waits for the wrong thing fails with a message instead of hanging.
    public struct WaitTimedOut: Error, CustomStringConvertible {
        /// What the test waited for.
        public var expected: String
        /// The sleeps pending when the wait gave up, as the time left on each, shortest first.
        public var pendingSleeps: [Duration]

        /// One line: what was awaited, and what was sleeping instead.
        public var description: String {
            let pending = pendingSleeps.isEmpty ? "none" : pendingSleeps.map { "\($0)" }.joined(separator: ", ")
            return "TestClock: waited in vain for \(expected); pending sleeps (time left): \(pending)"
        }
    }

    /// The time left on each pending sleep, shortest first.
    public var pendingSleeps: [Duration] {
        state.withLock { state in state.sleepers.values.map { state.now.duration(to: $0.deadline) }.sorted() }
    }

    /// Returns once at least `count` tasks are sleeping on this clock: a signal, not a guess about timing.
    ///
    /// Every sleep counts, the attempt's deadline timer included (which ends when the response arrives). To wait
    /// for one particular wait, such as ``Retry``'s backoff, use ``waitForSleep(atLeast:atMost:timeout:)``.
    ///
    /// - Throws: ``WaitTimedOut``, listing the pending sleeps, when `timeout` of real time passes first.
    public func waitForSleepers(_ count: Int, timeout: Duration = .seconds(10)) async throws(WaitTimedOut) {
        try await wait(for: "\(count) sleeper(s)", timeout: timeout) { $0.sleepers.count >= count }
    }

    /// Returns once a task sleeps on this clock for `minimum` or longer (measured from now): a backoff, a
    /// throttle's wait, a reconnection delay, told apart from the shorter or longer timers around it by its length.
    ///
    ///     async let result = client.response(for: .item(1))   // the first attempt gets a 503
    ///     try await testClock.waitForSleep(atLeast: .milliseconds(100))   // Retry's backoff, not the deadline timer
    ///     testClock.advance(by: .milliseconds(100))
    ///
    /// - Parameters:
    ///   - minimum: The shortest sleep that counts.
    ///   - maximum: The longest sleep that counts; `nil` for no bound. Give one to tell a backoff from a deadline
    ///     timer that is longer.
    ///   - timeout: How much real time to wait before giving up.
    /// - Throws: ``WaitTimedOut``, listing the pending sleeps, when `timeout` of real time passes first.
    public func waitForSleep(
        atLeast minimum: Duration,
        atMost maximum: Duration? = nil,
        timeout: Duration = .seconds(10)
    )
        async throws(WaitTimedOut)
    {
        let bounds = maximum.map { "\(minimum)…\($0)" } ?? "at least \(minimum)"
        try await wait(for: "a sleep of \(bounds)", timeout: timeout) { state in
            state.sleepers.values.contains { sleeper in
                let left = state.now.duration(to: sleeper.deadline)
                return left >= minimum && maximum.map { left <= $0 } ?? true
            }
        }
    }

    /// Returns once `isReady` holds for the clock's state, or throws after `timeout` of real time.
    private func wait(for expected: String, timeout: Duration, until isReady: @escaping @Sendable (State) -> Bool)
        async throws(WaitTimedOut)
    {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        let cameTrue = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                        // Decided under the lock that `onCancel` takes too: a wait cancelled before it registers
                        // ends here, one cancelled after is ended by `onCancel`.
                        let ready = self.state.withLock { state -> Bool? in
                            if isReady(state) { return true }
                            if Task.isCancelled { return false }
                            state.watchers[id] = (isReady, continuation)
                            return nil
                        }
                        if let ready { continuation.resume(returning: ready) }
                    }
                } onCancel: {
                    self.state.withLock { $0.watchers.removeValue(forKey: id) }?.continuation.resume(returning: false)
                }
            }
            group.addTask {
                try? await ContinuousClock().sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        guard cameTrue else { throw WaitTimedOut(expected: expected, pendingSleeps: pendingSleeps) }
    }

    private func notifyWatchers() {
        let ready = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            let due = state.watchers.filter { $0.value.isReady(state) }
            for id in due.keys { state.watchers.removeValue(forKey: id) }
            return due.values.map(\.continuation)
        }
        for continuation in ready { continuation.resume(returning: true) }
    }
}
