import Foundation

/// Runs `work` on a thread of its own and returns its result, for a long CPU-bound walk (a property test): on the
/// cooperative pool it would hold one of the two threads every other suite runs on for seconds, and time-limited
/// tests beside it would wait.
func onOwnThread<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}
