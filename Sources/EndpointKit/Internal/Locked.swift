import Foundation

/// A value behind a lock, for state that synchronous callbacks must change: a task cancellation handler
/// cannot await an actor without starting an unstructured task, and a URLSession delegate callback cannot
/// either.
package final class Locked<Value>: @unchecked Sendable {
    // Safe because every access to `value` goes through `withLock`, which holds `lock`.
    private var value: Value
    private let lock = NSLock()

    package init(_ value: Value) { self.value = value }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
