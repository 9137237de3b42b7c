#if Postgres
import EndpointKit
import Foundation
import Logging

/// How the sender carries out what its state's transitions return, in the order given: a write is settled in
/// PostgreSQL before its group's next write is tried, and the readers hear of a write's end only once the
/// database holds it (what ``PostgresOutbox/status(of:)`` then reads); the changes of one group reach them in the
/// order they happen.
extension PostgresOutboxSender {
    /// Applies `event` (and `update`, in the same hold of the lock), then carries out its effects.
    func apply(_ event: OutboxState.Event, update: (inout Shared) -> Void = { _ in }) async {
        let effects = shared.withLock { shared -> [OutboxState.Effect] in
            update(&shared)
            return shared.state.apply(event, now: Date())
        }
        await perform(effects)
    }

    /// Carries out the effects, in order: a change for the readers, a settle in the database, a stop, a try, a
    /// wait. A group whose write could not be settled is given up, and its later changes here are not reported:
    /// the instance that claims it next sends that write again and reports how it ended.
    func perform(_ effects: [OutboxState.Effect]) async {
        var ends: [UInt64: (notice: OutboxState.Notice, group: String, state: String, status: Int?)] = [:]
        var givenUp: Set<String> = []
        for effect in effects {
            switch effect {
            case .notify(let notice):
                if let end = Self.end(of: notice) {
                    ends[end.write.sequence] = (notice, end.write.group, end.state, end.status)
                    continue
                }
                // What this instance queued is reported by its enqueue, once the write is kept.
                if case .queued = notice { continue }
                if let group = Self.group(of: notice), givenUp.contains(group) { continue }
                // A stop is reported once the database holds it, so that a resume that follows ends it.
                if case .stopped(let group) = notice, await !stopGroup(group) { continue }
                report(OutboxChange(notice, policy: policy) { describe($0.record, $0.sequence) })
            case .remove(let sequence):
                guard let end = ends[sequence] else { continue }
                if await settle(sequence, of: end.group, as: end.state, status: end.status) {
                    report(OutboxChange(end.notice, policy: policy) { describe($0.record, $0.sequence) })
                } else {
                    givenUp.insert(end.group)
                }
            case .send(let write, let attempt):
                startTry(of: write, attempt: attempt)
            case .wake(let group, let number, let wait):
                schedule { [clock] in
                    do { try await clock.sleep(for: wait) } catch { return }
                    await self.apply(.pauseEnded(group: group, number: number))
                }
            case .settle:
                break
            }
        }
    }

    /// The row state and status a notice ends a write with, if it ends one.
    private static func end(of notice: OutboxState.Notice) -> (write: OutboxState.Write, state: String, status: Int?)? {
        switch notice {
        case .sent(let write, let status): (write, "sent", status)
        case .refused(let write, let error): (write, "refused", error.statusCode)
        case .expired(let write, _): (write, "expired", nil)
        case .unknown(let write, _): (write, "unknown", nil)
        case .queued, .paused, .resumed, .stopped: nil
        }
    }

    /// The group a notice that ends no write is about.
    private static func group(of notice: OutboxState.Notice) -> String? {
        switch notice {
        case .paused(let group, _, _, _), .resumed(let group), .stopped(let group): group
        case .queued(let write): write.group
        case .sent, .refused, .expired, .unknown: nil
        }
    }

    /// Settles write `sequence` of `group` in the database, fenced by the group's lease, and says whether it did.
    /// When the lease is gone, or the database cannot be reached, the group is given up: whoever claims it next
    /// sends the write again with its key, and the server answers that try from what it stored.
    private func settle(_ sequence: UInt64, of group: String, as state: String, status: Int?) async -> Bool {
        guard let lease = shared.withLock({ $0.held[group]?.lease }) else { return false }
        let settled = (try? await store.settle(Int64(sequence), as: state, status: status, under: lease)) ?? false
        if !settled { giveUp(group) }
        return settled
    }

    /// Marks `group` stopped in the database and gives it up: no instance sends it until a resume. Says whether
    /// the database holds the stop; when it does not (the lease lost, the database out of reach), the group is given
    /// up all the same, and whoever claims it next sends its later writes.
    private func stopGroup(_ group: String) async -> Bool {
        guard let lease = shared.withLock({ $0.held[group]?.lease }) else { return false }
        let stopped = (try? await store.stop(lease)) ?? false
        giveUp(group)
        return stopped
    }
}
#endif
