import Foundation

/// A value behind a lock, for state that synchronous cancellation handlers change.
final class Mutexed<Value>: @unchecked Sendable {
    // Safe because every access to `value` goes through `withLock`, which holds `lock`.
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
