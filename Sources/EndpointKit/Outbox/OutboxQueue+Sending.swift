import Foundation

/// How an outbox sends: one sender per group, a write at a time, each try's outcome settled, paused or refused.
extension OutboxQueue {
    // MARK: Sending

    /// Stops sending for good: no sender starts, and those running are cancelled (their writes stay queued).
    func close() {
        state.withLock { $0.isClosed = true }
        owner.cancelAll()
    }

    /// Starts a sender for `group` if it has writes it can send and none runs.
    func kick(_ group: String) {
        let starts = state.withLock { state -> Bool in
            guard state.isStarted, !state.isClosed, state.groups[group]?.canSend == true else { return false }
            state.groups[group]?.isSending = true
            return true
        }
        guard starts else { return }
        owner.run { [weak self] in await self?.drain(group) }
    }

    /// Sends the writes of `group` one at a time, in order, until it is empty, paused or stopped.
    func drain(_ group: String) async {
        while let entry = next(in: group) {
            let age = Date().timeIntervalSince(entry.record.queuedAt)
            if Duration.seconds(age) > policy.maximumAge {
                let write = describe(entry.record, entry.sequence)
                let error = EndpointError(
                    .writeExpired,
                    "\(write) waited \(Int(age)) s, past the outbox's maximum age, and was not sent",
                    request: write.request
                )
                finish(entry, settlement: .failed, change: .expired(write, error))
                continue
            }
            switch await send(entry.record) {
            case .sent(let status, let body):
                finish(
                    entry,
                    settlement: .answered(body),
                    change: .sent(describe(entry.record, entry.sequence), statusCode: status)
                )
                resume(pausedOnly: true)
            case .refused(let error) where isInFlightConflict(error, of: entry, in: group):
                pause(group, error: error, retryAfter: error.retryAfter)
            case .refused(let error):
                finish(entry, settlement: .failed, change: .refused(describe(entry.record, entry.sequence), error))
                if policy.onRefusal == .stopGroup { stop(group) }
            case .retry(let error, let retryAfter):
                if error.statusCode == nil { markMayBeInFlight(entry, in: group) }
                pause(group, error: error, retryAfter: retryAfter)
            case .cancelled:
                state.withLock { $0.groups[group]?.isSending = false }
                return
            }
        }
        wakeIdleWaiters()
    }

    /// The next write of `group` to send, or `nil` (and the group no longer sending) when there is none it may send.
    func next(in group: String) -> Entry? {
        state.withLock { state in
            guard let current = state.groups[group] else { return nil }
            if !state.isClosed, current.pause == nil, !current.isStopped, let first = current.queue.first {
                return first
            }
            state.groups[group]?.isSending = false
            if current.queue.isEmpty { state.groups[group] = nil }
            return nil
        }
    }

    /// Whether `error` is a 409 that may mean "a request with this key is in progress" (the draft's answer while an
    /// earlier try still runs) rather than a conflict: the write may be in flight, and has not had its share of
    /// them. Counts it.
    func isInFlightConflict(_ error: EndpointError, of entry: Entry, in group: String) -> Bool {
        guard error.statusCode == 409, entry.mayBeInFlight else { return false }
        return state.withLock { state in
            guard var head = state.groups[group]?.queue.first, head.sequence == entry.sequence,
                head.inFlightConflicts < Self.inFlightConflictLimit
            else { return false }
            head.inFlightConflicts += 1
            state.groups[group]?.queue[0] = head
            return true
        }
    }

    /// Notes that a try of `entry` ended without an answer: the server may have it still.
    func markMayBeInFlight(_ entry: Entry, in group: String) {
        state.withLock { state in
            guard state.groups[group]?.queue.first?.sequence == entry.sequence else { return }
            state.groups[group]?.queue[0].mayBeInFlight = true
        }
    }

    /// Takes a settled write off the disk and the queue, tells the stores that showed it, then the subscribers.
    func finish(_ entry: Entry, settlement: Settlement, change: OutboxChange) {
        // A removal that fails leaves the file: the write is sent again at the next start, with its key, and the
        // server answers it from what it stored.
        try? journal.remove(sequence: entry.sequence)
        let listeners = state.withLock { state -> [any OutboxListener] in
            if let index = state.groups[entry.record.group]?.queue.firstIndex(where: { $0.sequence == entry.sequence })
            {
                state.groups[entry.record.group]?.queue.remove(at: index)
                state.groups[entry.record.group]?.failures = 0
                state.count -= 1
                state.bytes -= entry.size
            }
            return entry.record.store.flatMap { state.listeners[$0].map { Array($0.values) } } ?? []
        }
        for listener in listeners { listener.settle(entry.record, sequence: entry.sequence, settlement) }
        emit(change)
    }
}
