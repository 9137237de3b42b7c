import Foundation

extension Pipeline {
    /// How the attempt's one deadline is enforced: chosen once, when the client is made.
    enum DeadlineEnforcement: Sendable {
        /// The transport times each hop with the time left (it says it can, and the client runs on real time):
        /// no timer of the engine's own, which costs a measurable share of a fast request.
        case byTransport
        /// The engine runs the attempt in a task of its own that a timer on the client's clock cancels when the
        /// deadline passes: on real time the one shared deadline timer, on another clock a sleep on it.
        case byTimer(any Clock<Duration>)
    }

    /// Runs `work` in a task of its own, cancelled when `timeout` passes on the client's clock, and reports that
    /// as the deadline passing; cancelling the caller cancels the work too.
    func racing(
        _ timeout: Duration,
        on clock: any Clock<Duration>,
        _ work: @escaping @Sendable () async throws -> TransportResponse
    ) async throws -> TransportResponse {
        // Awaited below and cancelled with the caller: not fire-and-forget.
        let task = Task { try await work() }
        let expired = Locked(false)
        let fire: @Sendable () -> Void = {
            expired.withLock { $0 = true }
            task.cancel()
        }
        let stopTimer: @Sendable () -> Void
        if clock is ContinuousClock {
            // One shared timer for every deadline on real time: nothing wakes up unless one fires.
            let token = DeadlineScheduler.shared.schedule(after: timeout, fire)
            stopTimer = { DeadlineScheduler.shared.cancel(token) }
        } else {
            let sleeper = Task {
                try await clock.sleep(for: timeout)
                fire()
            }
            stopTimer = { sleeper.cancel() }
        }
        defer { stopTimer() }
        do {
            return try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
        } catch {
            guard expired.withLock({ $0 }) else { throw error }
            throw EndpointError.deadlinePassed(timeout)
        }
    }
}
