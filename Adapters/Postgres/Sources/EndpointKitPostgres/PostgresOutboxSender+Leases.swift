#if Postgres
import EndpointKit
import Foundation
import Logging
import PostgresNIO

/// How the sender holds groups: it renews its leases, gives up those it can no longer be sure of, claims free ones
/// and reads the writes queued in those it holds.
extension PostgresOutboxSender {
    /// One pass: renew when due, give up what lapsed, claim, read new writes, give back drained groups.
    func refresh() async {
        guard !shared.withLock({ $0.isStopping }) else { return }
        await renewIfDue()
        releaseLapsed()
        do {
            try await claim()
            try await readNewWrites()
        } catch {
            store.logger.debug("outbox: refresh failed: \(PostgresOutboxFailure.reason(error))")
        }
        await releaseDrained()
    }

    /// Renews every lease held, once a third of the lease's duration has passed since the last renewal.
    private func renewIfDue() async {
        let started = ContinuousClock.now
        let leases = shared.withLock { shared -> [PostgresOutboxStore.Lease]? in
            guard started - shared.lastRenewal >= configuration.leaseDuration / 3 else { return nil }
            return shared.held.values.map(\.lease)
        }
        guard let leases else { return }
        do {
            let kept = try await store.renew(leases, for: configuration.leaseDuration)
            let lost = shared.withLock { shared -> [String] in
                shared.lastRenewal = started
                var lost: [String] = []
                for (name, held) in shared.held {
                    if kept.contains(held.lease) {
                        shared.held[name]?.deadline = started + configuration.localLeaseDuration
                    } else {
                        lost.append(name)
                    }
                }
                return lost
            }
            for name in lost { giveUp(name) }
        } catch {
            // The deadlines stay: a lease that cannot be renewed in time is given up by `releaseLapsed`.
            store.logger.debug("outbox: leases not renewed: \(PostgresOutboxFailure.reason(error))")
        }
    }

    /// Gives up, locally, each lease whose deadline has passed.
    func releaseLapsed() {
        let now = ContinuousClock.now
        let lapsed = shared.withLock { $0.held.filter { $0.value.deadline <= now }.map(\.key) }
        for name in lapsed { giveUp(name) }
    }

    /// Stops sending `name` at once: its try on its way is cancelled, its writes leave the state unsettled. The
    /// database still names this instance until the lease lapses there, which no fenced statement outlives.
    func giveUp(_ name: String) {
        let task = shared.withLock { shared -> Task<OutboxState.Outcome, Never>? in
            shared.held[name] = nil
            _ = shared.state.apply(.released(group: name), now: Date())
            return shared.tries[name]
        }
        task?.cancel()
    }

    /// Claims free groups up to the configured number, and takes each up with its queued writes.
    private func claim() async throws {
        let room = shared.withLock { configuration.maximumGroups - $0.held.count }
        guard room > 0 else { return }
        let started = ContinuousClock.now
        let leases = try await store.claim(
            limit: min(room, configuration.groupsPerClaim),
            for: configuration.leaseDuration
        )
        guard !leases.isEmpty else { return }
        var taken: [PostgresOutboxStore.Lease] = []
        for lease in leases {
            // A try of the group from before it was lost may still be ending: the group waits for the next pass.
            let busy = shared.withLock { $0.tries[lease.group] != nil || $0.isStopping }
            if busy { try? await store.release(lease) } else { taken.append(lease) }
        }
        let rows = try await store.queuedWrites(of: taken.map(\.group))
        for lease in taken {
            let writes = await self.writes(from: rows.filter { $0.group == lease.group })
            let deadline = started + configuration.localLeaseDuration
            let last = rows.last { $0.group == lease.group }?.sequence ?? 0
            await apply(.claimed(group: lease.group, writes: writes)) { shared in
                shared.held[lease.group] = Held(lease: lease, lastSequence: last, deadline: deadline)
            }
        }
    }

    /// Reads the writes queued in the groups it held already since it last read them.
    private func readNewWrites() async throws {
        let held = shared.withLock { $0.held }
        guard let after = held.values.map(\.lastSequence).min() else { return }
        let rows = try await store.queuedWrites(of: Array(held.keys), after: after)
        for row in rows {
            guard let known = held[row.group], row.sequence > known.lastSequence else { continue }
            for write in await writes(from: [row]) {
                await apply(.queued(write)) { shared in
                    if shared.held[row.group] != nil { shared.held[row.group]?.lastSequence = row.sequence }
                }
            }
        }
    }

    /// The queue's writes of `rows`; a row that cannot be read is set aside as damaged, and reported.
    func writes(from rows: [PostgresOutboxStore.Row]) async -> [OutboxState.Write] {
        var writes: [OutboxState.Write] = []
        for row in rows {
            guard let data = row.record, let record = try? JSONDecoder().decode(OutboxRecord.self, from: data),
                OutboxRecord.readableFormats.contains(record.format), record.group == row.group
            else {
                try? await store.setAside(row.sequence)
                report(.damaged(file: "\(store.schema).outbox_writes sequence \(row.sequence) (id \(row.id))"))
                continue
            }
            let delivery: OutboxState.Delivery = row.tried ? .mayHaveReachedServer : .neverTried
            writes.append(
                OutboxState.Write(sequence: UInt64(row.sequence), record: record, size: row.size, delivery: delivery)
            )
        }
        return writes
    }

    /// Gives back the lease of each group it holds that has nothing left to send.
    private func releaseDrained() async {
        let drained = shared.withLock { shared -> [PostgresOutboxStore.Lease] in
            let names = shared.held.keys.filter { shared.state.groups[$0] == nil && shared.tries[$0] == nil }
            return names.compactMap { shared.held.removeValue(forKey: $0)?.lease }
        }
        for lease in drained { try? await store.release(lease) }
    }

    /// Gives back every lease, at the end of the loop.
    func releaseAll() async {
        let leases = shared.withLock { shared in
            defer { shared.held = [:] }
            return shared.held.values.map(\.lease)
        }
        for lease in leases { try? await store.release(lease) }
    }
}
#endif
