import EndpointKit
import Foundation

// What the model store costs and guarantees at scale, with an instant in-process load (no network), so that the
// figures are the store's own: `endpointkit-benchmarks model-store [OBSERVERS]`.

private struct Model: Identifiable, Decodable, Sendable {
    var id: Int
    var version: Int
}

/// Counts loads, per ID.
private final class LoadCounter: @unchecked Sendable {
    // Safe because every access to `counts` holds `lock`.
    private let lock = NSLock()
    private var counts: [Int: Int] = [:]

    func add(_ id: Int) {
        lock.lock()
        counts[id, default: 0] += 1
        lock.unlock()
    }

    var total: Int {
        lock.lock()
        defer { lock.unlock() }
        return counts.values.reduce(0, +)
    }
}

private func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

func modelStore(observers: Int) async throws {
    let clock = ContinuousClock()
    let counter = LoadCounter()
    let version = ManagedAtomicVersion()
    let loader = ModelLoader<Model>(policy: ModelStorePolicy(freshness: .seconds(3600))) { id in
        counter.add(id)
        return Model(id: id, version: version.value)
    }
    print("model-store: \(observers) observers over 100 IDs, an instant in-process load")

    // The same number of tasks, each waiting on a stream of its own: the baseline the observers' memory is
    // measured against, so that the figure is the store's, not the tasks'.
    let baselineStart = currentResidentKilobytes()
    let baselineStarted = AsyncCountdown(observers)
    var baselineContinuations: [AsyncStream<Int>.Continuation] = []
    let baseline = (0..<observers).map { _ in
        let (stream, continuation) = AsyncStream<Int>.makeStream(bufferingPolicy: .bufferingNewest(1))
        baselineContinuations.append(continuation)
        return Task {
            await baselineStarted.arrive()
            for await _ in stream {}
        }
    }
    await baselineStarted.wait()
    let baselineBytes = Double(currentResidentKilobytes() - baselineStart) * 1024 / Double(observers)
    for continuation in baselineContinuations { continuation.finish() }
    for task in baseline { await task.value }

    // Subscribe every observer; each reports its first value and then the first value of version 2.
    let firstValues = AsyncCountdown(observers)
    let secondValues = AsyncCountdown(observers)
    let arrivals = ArrivalTimes(capacity: observers)
    let before = currentResidentKilobytes()
    let tasks = (0..<observers).map { index in
        Task {
            var sawFirst = false
            for try await model in loader.publisher(forID: index % 100) {
                if !sawFirst {
                    sawFirst = true
                    await firstValues.arrive()
                }
                if model.version == 2 {
                    arrivals.record(clock.now)
                    await secondValues.arrive()
                    break
                }
            }
        }
    }
    await firstValues.wait()
    let subscribed = currentResidentKilobytes()
    print("  all subscribed and served: \(counter.total) loads for 100 IDs (goal 100)")
    let observerBytes = Double(subscribed - before) * 1024 / Double(observers)
    print(
        String(
            format: "  memory: %.0f B per observer over a task waiting on a stream of its own (%.0f B; goal ≤ 1 KB)",
            observerBytes - baselineBytes,
            baselineBytes
        )
    )

    // Everything fresh: asking again costs nothing.
    let loadsBefore = counter.total
    for id in 0..<100 { _ = try await loader.loadModel(withID: id) }
    print("  all fresh, 100 loadModel calls: \(counter.total - loadsBefore) loads (goal 0)")

    // Invalidate all: exactly one refetch per observed ID, and every observer gets version 2.
    version.value = 2
    let loadsBeforeInvalidation = counter.total
    let invalidationStart = clock.now
    loader.invalidateAll()
    let invalidation = clock.now - invalidationStart
    await secondValues.wait()
    let spread = arrivals.sorted().map { milliseconds($0 - invalidationStart) }
    print(String(format: "  invalidating 100 observed entries: %.3f ms", milliseconds(invalidation)))
    print("  refetches: \(counter.total - loadsBeforeInvalidation) (goal 100)")
    print(
        String(
            format: "  from the invalidation to each observer's new value: p50 %.2f ms, p99 %.2f ms, last %.2f ms",
            spread[spread.count / 2],
            spread[spread.count * 99 / 100],
            spread.last ?? 0
        )
    )
    for task in tasks { task.cancel() }
    for task in tasks { _ = await task.result }

    // One response to many observers of one ID: each observer notes when the new value reached it and keeps
    // observing; the last arrival resumes the benchmark.
    let single = ModelLoader<Model>(policy: ModelStorePolicy(freshness: .seconds(3600))) { id in
        Model(id: id, version: 1)
    }
    let ready = AsyncCountdown(observers)
    let times = ArrivalTimes(capacity: observers)
    let allArrived = LastArrival(observers)
    let watchers = (0..<observers).map { _ in
        Task {
            var first = true
            for try await model in single.publisher(forID: 0) {
                if first {
                    first = false
                    await ready.arrive()
                    continue
                }
                times.record(clock.now)
                allArrived.arrive()
                _ = model
            }
        }
    }
    await ready.wait()
    let putAt = clock.now
    await allArrived.wait {
        single.put(Model(id: 0, version: 9))
    }
    let delays = times.sorted().map { milliseconds($0 - putAt) }
    print(
        String(
            format: "  one put to %d observers of one ID, each noting its arrival: first %.2f ms, p50 %.2f ms,"
                + " p99 %.2f ms (goal ≤ 10 ms), last %.2f ms",
            observers,
            delays.first ?? 0,
            delays[delays.count / 2],
            delays[delays.count * 99 / 100],
            delays.last ?? 0
        )
    )
    for watcher in watchers { watcher.cancel() }
    for watcher in watchers { _ = await watcher.result }

    // Invalidating 10,000 entries nobody observes: marks them, fetches none.
    let many = ModelLoader<Model>(policy: ModelStorePolicy(freshness: .seconds(3600), maximumCount: 20_000)) { id in
        Model(id: id, version: 1)
    }
    for start in stride(from: 0, to: 10_000, by: 1_000) {
        _ = try await many.loadModels(withIDs: Array(start..<start + 1_000))
    }
    let markStart = clock.now
    many.invalidateAll()
    print(
        String(
            format: "  invalidating 10,000 unobserved entries: %.3f ms (goal ≤ 1 ms)",
            milliseconds(clock.now - markStart)
        )
    )

    // Subscribe and unsubscribe a million times: nothing left behind, memory flat.
    let churn = ModelLoader<Model>(policy: ModelStorePolicy(freshness: .seconds(3600))) { id in
        Model(id: id, version: 1)
    }
    _ = try await churn.loadModel(withID: 1)
    var rounds: [Int] = []
    for _ in 0..<10 {
        for _ in 0..<100_000 {
            var iterator = churn.publisher(forID: 1).makeAsyncIterator()
            _ = try await iterator.next()
        }
        rounds.append(currentResidentKilobytes())
    }
    print(
        "  1,000,000 subscribe/unsubscribe cycles: resident memory after each 100,000: "
            + rounds.map { String(format: "%.1f", Double($0) / 1024) }.joined(separator: ", ") + " MiB"
            + String(
                format: " (last − first: %+.2f MiB; goal within 1 MiB)",
                Double((rounds.last ?? 0) - (rounds.first ?? 0)) / 1024
            )
    )
}

/// A version number the load closure reads.
private final class ManagedAtomicVersion: @unchecked Sendable {
    // Safe because every access to `stored` holds `lock`.
    private let lock = NSLock()
    private var stored = 1
    var value: Int {
        get {
            lock.lock()
            defer { lock.unlock() }
            return stored
        }
        set {
            lock.lock()
            stored = newValue
            lock.unlock()
        }
    }
}

/// Arrival instants, recorded from many tasks.
private final class ArrivalTimes: @unchecked Sendable {
    // Safe because every access to `times` holds `lock`.
    private let lock = NSLock()
    private var times: [ContinuousClock.Instant] = []

    init(capacity: Int) { times.reserveCapacity(capacity) }

    func record(_ instant: ContinuousClock.Instant) {
        lock.lock()
        times.append(instant)
        lock.unlock()
    }

    func sorted() -> [ContinuousClock.Instant] {
        lock.lock()
        defer { lock.unlock() }
        return times.sorted()
    }
}

/// Waits until `count` arrivals: a signal, not a clock.
private actor AsyncCountdown {
    private var remaining: Int
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(_ count: Int) { remaining = count }

    func arrive() {
        remaining -= 1
        if remaining == 0 {
            for waiter in waiters { waiter.resume() }
            waiters = []
        }
    }

    func wait() async {
        guard remaining > 0 else { return }
        await withCheckedContinuation { waiters.append($0) }
    }
}

/// Counts arrivals under a lock and resumes one waiter at the last: no actor hop per arrival.
private final class LastArrival: @unchecked Sendable {
    // Safe because every access to `remaining` and `waiter` holds `lock`.
    private let lock = NSLock()
    private var remaining: Int
    private var waiter: CheckedContinuation<Void, Never>?

    init(_ count: Int) { remaining = count }

    func arrive() {
        lock.lock()
        remaining -= 1
        let done = remaining == 0 ? waiter : nil
        if done != nil { waiter = nil }
        lock.unlock()
        done?.resume()
    }

    /// Runs `start`, then waits for the last arrival.
    func wait(_ start: () -> Void) async {
        await withCheckedContinuation { continuation in
            lock.lock()
            waiter = continuation
            lock.unlock()
            start()
        }
    }
}
