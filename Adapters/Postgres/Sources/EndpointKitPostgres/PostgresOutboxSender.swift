#if Postgres
import EndpointKit
import Foundation
import Logging
import PostgresNIO

/// What sends a ``PostgresOutbox``'s writes in one instance: it claims groups under leases, keeps the queue's
/// state of the groups it holds (`OutboxState`, changed only by its `apply`, as the directory outbox's is), and
/// carries out the effects each event returns: a try, a wait, a fenced settle in PostgreSQL.
///
/// Its loop (``run()``) runs three kinds of work in one task group: a listener (`LISTEN`) that wakes it when a write
/// commits, a ticker that wakes it at the poll interval and renews leases, and the jobs the effects ask for (a
/// try of a group's first write, a wait out of a pause). A lease it cannot renew is given up locally before it can
/// lapse in the database (its try is cancelled), so that no two instances ever send one group at once.
final class PostgresOutboxSender: Sendable {
    /// A group this instance holds.
    struct Held: Sendable {
        var lease: PostgresOutboxStore.Lease
        /// The last write of the group it has read.
        var lastSequence: Int64
        /// When, by this process's clock, the lease may have lapsed in the database: measured from before the
        /// statement that claimed or renewed it was sent.
        var deadline: ContinuousClock.Instant
    }

    /// Everything that changes, under one lock.
    struct Shared {
        var state: OutboxState
        var held: [String: Held] = [:]
        /// The try on its way in each group, until its outcome is applied and settled: to cancel when the group's
        /// lease is lost, and to keep the group from being given back as drained meanwhile.
        var tries: [String: Task<OutboxState.Outcome, Never>] = [:]
        /// Tries started and not yet settled: a graceful stop waits for them.
        var active = 0
        var subscribers: [UInt64: AsyncStream<OutboxChange>.Continuation] = [:]
        var nextID: UInt64 = 0
        var isStopping = false
        var lastRenewal = ContinuousClock.now
    }

    let store: PostgresOutboxStore
    let policy: OutboxPolicy
    let configuration: PostgresOutboxConfiguration
    let clock: any Clock<Duration>
    let describe: @Sendable (OutboxRecord, UInt64) -> OutboxWrite
    let send: @Sendable (OutboxRecord) async -> OutboxState.Outcome
    let shared: Locked<Shared>
    let jobs = AsyncStream<@Sendable () async -> Void>.makeStream()
    let wakes = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))

    init(
        store: PostgresOutboxStore,
        policy: OutboxPolicy,
        configuration: PostgresOutboxConfiguration,
        clock: any Clock<Duration>,
        describe: @escaping @Sendable (OutboxRecord, UInt64) -> OutboxWrite,
        send: @escaping @Sendable (OutboxRecord) async -> OutboxState.Outcome
    ) {
        (self.store, self.policy, self.configuration, self.clock) = (store, policy, configuration, clock)
        (self.describe, self.send) = (describe, send)
        var state = OutboxState(policy: policy)
        _ = state.apply(.started, now: Date())
        shared = Locked(Shared(state: state))
    }

    // MARK: The loop

    /// Sends until ``stop()`` (the tries on their way end first, then every lease is given back) or until the
    /// caller's task is cancelled (the tries are cancelled and their writes stay queued).
    func run() async {
        // Not cancelled at a stop: the pass under way (a claim, say) ends on its own once the stop has ended the
        // wakes, so that every lease it claimed is held, and given back below, or given back at once.
        async let refreshing: Void = refreshLoop()
        await withDiscardingTaskGroup { group in
            group.addTask { await self.listen() }
            group.addTask { await self.tick() }
            group.addTask { await self.pruneLoop() }
            for await job in jobs.stream { group.addTask { await job() } }
            // Every try has ended: what is left waits out a pause, listens or ticks.
            group.cancelAll()
        }
        await refreshing
        await releaseAll()
        let subscribers = shared.withLock { shared in
            defer { shared.subscribers = [:] }
            return Array(shared.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }

    /// Starts a graceful stop: no new try starts; ``run()`` returns once the tries on their way have ended and been
    /// settled, and every lease is given back.
    func stop() {
        let idle = shared.withLock { shared -> Bool in
            shared.isStopping = true
            _ = shared.state.apply(.closed, now: Date())
            return shared.active == 0
        }
        wakes.continuation.finish()
        if idle { jobs.continuation.finish() }
    }

    /// Wakes the loop: a write may have committed, or a group may be free.
    func wake() { wakes.continuation.yield() }

    /// Listens for commits, from a connection of its own, until cancelled; a lost connection is listened on again
    /// after the poll interval, and the loop refreshes meanwhile as it would anyway.
    private func listen() async {
        while !Task.isCancelled {
            do {
                try await store.client.withConnection { connection in
                    try await connection.listen(on: store.channel) { notifications in
                        // Writes may have committed before the listening began.
                        self.wake()
                        for try await _ in notifications { self.wake() }
                    }
                }
            } catch {
                store.logger.debug("outbox: listening stopped: \(PostgresOutboxFailure.reason(error))")
            }
            try? await Task.sleep(for: configuration.pollInterval)
        }
    }

    /// Wakes the loop at the poll interval, or more often when leases must be renewed sooner, and gives up each
    /// lease whose deadline has passed even while the loop waits on the database.
    private func tick() async {
        let interval = min(configuration.pollInterval, configuration.leaseDuration / 3)
        while !Task.isCancelled {
            do { try await Task.sleep(for: interval) } catch { return }
            releaseLapsed()
            wake()
        }
    }

    /// Deletes the rows of writes that ended longer ago than the configuration keeps them, a batch of at most 1,000
    /// at each poll interval; a failure waits for the next.
    private func pruneLoop() async {
        while !Task.isCancelled {
            do { try await Task.sleep(for: configuration.pollInterval) } catch { return }
            do {
                _ = try await store.prune(endedBefore: configuration.keepSettled, limit: 1_000)
            } catch {
                store.logger.debug("outbox: settled rows were not deleted: \(PostgresOutboxFailure.reason(error))")
            }
        }
    }

    /// Refreshes at each wake, until the stop.
    private func refreshLoop() async {
        for await _ in wakes.stream {
            await refresh()
        }
    }

    /// Runs `job` in the loop's task group; dropped once the loop is stopping and has no try left.
    func schedule(_ job: @escaping @Sendable () async -> Void) { jobs.continuation.yield(job) }

    /// The outbox's changes from now on, until the loop stops.
    func changes() -> OutboxChanges {
        let (stream, continuation) = AsyncStream<OutboxChange>.makeStream()
        let id = shared.withLock { shared -> UInt64? in
            guard !shared.isStopping else { return nil }
            shared.nextID += 1
            shared.subscribers[shared.nextID] = continuation
            return shared.nextID
        }
        guard let id else {
            continuation.finish()
            return OutboxChanges(stream)
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.shared.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return OutboxChanges(stream)
    }

    /// Tells every reader of the changes.
    func report(_ change: OutboxChange) {
        for subscriber in shared.withLock({ Array($0.subscribers.values) }) { subscriber.yield(change) }
    }
}
#endif
