import Dispatch
import Testing

@testable import EndpointKit

/// `signal` waited for on a thread of its own, so that the wait holds no thread of the cooperative pool; `false`
/// when it is not signalled within `seconds`.
private func signalled(_ signal: DispatchSemaphore, within seconds: Double) async -> Bool {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(returning: signal.wait(timeout: .now() + seconds) == .success)
        }
    }
}

@Suite(.timeLimit(.minutes(1)))
struct DeadlineSchedulerTests {
    @Test("A deadline whose work blocks holds no other back: the next one fires while the first still blocks")
    func blockingDeadline() async {
        let blocking = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let next = DispatchSemaphore(value: 0)
        // What a deadline does when it cancels a task whose cancellation handler blocks (Foundation's
        // URLSession.data(for:) on Linux): it holds its thread until released, or for 20 s.
        _ = DeadlineScheduler.shared.schedule(after: .milliseconds(10)) {
            blocking.signal()
            _ = release.wait(timeout: .now() + 20)
        }
        _ = DeadlineScheduler.shared.schedule(after: .milliseconds(30)) { next.signal() }

        let started = await signalled(blocking, within: 10)
        let nextFired = await signalled(next, within: 10)
        release.signal()

        #expect(started)
        #expect(nextFired, "the second deadline waited for the first one's work")
    }
}
