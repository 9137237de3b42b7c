#if Postgres
import EndpointKit
import Foundation
import Logging

/// How the sender tries a group's first write: only while it holds the group, after recording in the database,
/// fenced, that the write may reach the server.
extension PostgresOutboxSender {
    /// Starts try `attempt` of `write` in the loop's task group.
    func startTry(of write: OutboxState.Write, attempt: UInt64) {
        let started = shared.withLock { shared -> Bool in
            guard !shared.isStopping else { return false }
            shared.active += 1
            return true
        }
        guard started else { return }
        schedule {
            await self.runTry(of: write, attempt: attempt)
            // Settled (or left queued): a graceful stop that waits for the last try may end now.
            let last = self.shared.withLock { shared -> Bool in
                shared.active -= 1
                return shared.isStopping && shared.active == 0
            }
            if last { self.jobs.continuation.finish() }
        }
    }

    /// Cancels `task` once `lease` may have lapsed, by this process's clock: at the group's deadline, which each
    /// renewal moves on, whatever the loop is doing (a refresh may be waiting on the database meanwhile).
    private func watch(
        _ task: Task<OutboxState.Outcome, Never>,
        group: String,
        lease: PostgresOutboxStore.Lease
    ) -> Task<Void, Never> {
        // Kept by the try, which cancels it when the try ends.
        let watchdog = Task { [weak self] in
            while !Task.isCancelled {
                let deadline = self?.shared.withLock { shared in
                    shared.held[group].flatMap { $0.lease == lease ? $0.deadline : nil }
                }
                guard let deadline, deadline > .now else {
                    task.cancel()
                    return
                }
                try? await Task.sleep(until: deadline, clock: .continuous)
            }
        }
        return watchdog
    }

    private func runTry(of write: OutboxState.Write, attempt: UInt64) async {
        let group = write.group
        let now = ContinuousClock.now
        let lease = shared.withLock { shared in
            shared.isStopping ? nil : shared.held[group].flatMap { $0.deadline > now ? $0.lease : nil }
        }
        // Not held (given up meanwhile), or stopping: the write stays queued, for whoever holds the group next.
        guard let lease else { return }
        let marked: Bool
        do { marked = try await store.markTried(Int64(write.sequence), under: lease) } catch {
            store.logger.debug("outbox: a try could not start: \(PostgresOutboxFailure.reason(error))")
            marked = false
        }
        guard marked else {
            giveUp(group)
            return
        }
        let task = Task { await send(write.record) }
        let registered = shared.withLock { shared -> Bool in
            guard shared.held[group]?.lease == lease else { return false }
            shared.tries[group] = task
            return true
        }
        if !registered { task.cancel() }
        let watchdog = watch(task, group: group, lease: lease)
        let outcome = await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
        watchdog.cancel()
        await apply(.tryEnded(group: group, attempt: attempt, outcome: outcome, jitter: .random(in: 0...1)))
        // Only once its outcome is settled: a group whose try is listed is not drained, so its lease is not given
        // back under the settle (which then failed, and the write was sent again). The next try may have
        // registered meanwhile.
        shared.withLock { shared in
            if shared.tries[group] == task { shared.tries[group] = nil }
        }
    }
}
#endif
