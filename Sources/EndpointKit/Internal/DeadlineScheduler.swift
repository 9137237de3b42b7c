import Dispatch

/// One timer for many deadlines: deadlines fall into 10 ms buckets, and a single dispatch timer is armed for
/// the earliest bucket only, so scheduling and cancelling a deadline that does not fire costs a dictionary
/// update and wakes nothing.
///
/// A timer per request (a dispatch timer, or a task sleeping on a clock) arms the system timer on every
/// request, which measurably slows a fast loopback request; most deadlines never fire. A deadline fires
/// between its time and 10 ms after it, on a thread of the global pool, whatever other deadlines do when they fire.
final class DeadlineScheduler: @unchecked Sendable {
    /// A scheduled deadline, to cancel it.
    struct Token: Sendable, Hashable {
        fileprivate let bucket: UInt64
        fileprivate let id: UInt64
    }

    private struct State {
        var buckets: [UInt64: [UInt64: @Sendable () -> Void]] = [:]
        /// Bucket numbers with deadlines, ascending.
        var order: [UInt64] = []
        var armed: UInt64?
        var nextID: UInt64 = 0
    }

    static let bucketNanoseconds: UInt64 = 10_000_000

    /// The scheduler every ``URLSessionTransport`` shares.
    static let shared = DeadlineScheduler()

    private let state = Locked(State())
    private let queue = DispatchQueue(label: "EndpointKit.DeadlineScheduler")
    // Safe because a dispatch source is thread-safe: it is only re-scheduled, always under `state`'s lock.
    private let timer: any DispatchSourceTimer

    private init() {
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [weak self] in self?.fireDue() }
        timer.activate()
    }

    /// Calls `fire` once `delay` has passed, unless cancelled first.
    func schedule(after delay: Duration, _ fire: @escaping @Sendable () -> Void) -> Token {
        // Saturating: a delay of centuries is "never", not an overflow.
        let (whole, overflow) = UInt64(max(0, delay.components.seconds)).multipliedReportingOverflow(
            by: 1_000_000_000
        )
        let nanoseconds = overflow ? UInt64.max / 2 : min(whole, UInt64.max / 2)
        let fraction = UInt64(max(0, delay.components.attoseconds) / 1_000_000_000)
        let due =
            min(DispatchTime.now().uptimeNanoseconds, UInt64.max / 4) + min(nanoseconds + fraction, UInt64.max / 2)
        let bucket = (due + Self.bucketNanoseconds - 1) / Self.bucketNanoseconds
        return state.withLock { state -> Token in
            state.nextID += 1
            let token = Token(bucket: bucket, id: state.nextID)
            if state.buckets[bucket] == nil {
                state.buckets[bucket] = [:]
                let index = state.order.partitioningIndex(for: bucket)
                state.order.insert(bucket, at: index)
            }
            state.buckets[bucket]?[token.id] = fire
            // Armed under the lock, so that a timer firing at the same moment cannot re-arm it later.
            if state.armed.map({ bucket < $0 }) ?? true {
                state.armed = bucket
                arm(bucket)
            }
            return token
        }
    }

    /// Forgets a deadline that has not fired.
    func cancel(_ token: Token) {
        state.withLock { state in
            guard state.buckets[token.bucket]?.removeValue(forKey: token.id) != nil,
                state.buckets[token.bucket]?.isEmpty == true
            else { return }
            // An empty bucket stays in `order` until the timer passes it; it then costs one skipped look-up.
        }
    }

    private func arm(_ bucket: UInt64) {
        timer.schedule(
            deadline: DispatchTime(uptimeNanoseconds: bucket * Self.bucketNanoseconds),
            leeway: .milliseconds(1)
        )
    }

    private func fireDue() {
        let now = DispatchTime.now().uptimeNanoseconds / Self.bucketNanoseconds
        let due = state.withLock { state -> [@Sendable () -> Void] in
            var due: [@Sendable () -> Void] = []
            while let first = state.order.first, first <= now {
                state.order.removeFirst()
                if let bucket = state.buckets.removeValue(forKey: first) { due.append(contentsOf: bucket.values) }
            }
            while let first = state.order.first, state.buckets[first]?.isEmpty ?? true {
                state.order.removeFirst()
                state.buckets.removeValue(forKey: first)
            }
            state.armed = state.order.first
            if let next = state.order.first { arm(next) }
            return due
        }
        // Each on a thread of the global pool, never on this queue: a deadline that cancels a task runs its
        // cancellation handlers then and there, and one that blocks (Foundation's `URLSession.data(for:)` cancels
        // its URLSessionTask, which on Linux can wait for the transfer) would hold back every other deadline.
        for fire in due { DispatchQueue.global().async(execute: fire) }
    }
}

extension Array where Element == UInt64 {
    /// The index at which `value` keeps this ascending array sorted.
    fileprivate func partitioningIndex(for value: UInt64) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if self[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
