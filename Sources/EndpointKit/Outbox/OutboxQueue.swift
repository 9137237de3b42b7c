import Foundation

/// The state of an ``Outbox`` apart from its kind: the writes of each group in order, who sends them, which groups
/// wait, and who listens. Writes reach the disk (`OutboxJournal`) before anyone sees them, and leave it only once
/// they are settled.
final class OutboxQueue: Sendable {
    /// How a try of a write ended.
    enum Outcome: Sendable {
        /// The server took it: its status and body.
        case sent(statusCode: Int, body: Data)
        /// The server refused it; it will never be taken as it is.
        case refused(EndpointError)
        /// It could not be sent now; try again later, after `retryAfter` if the server said.
        case retry(EndpointError, retryAfter: Duration?)
        /// The sending task was cancelled: the outbox is going away. The write stays queued.
        case cancelled
    }

    /// How a write ended, for the stores that showed it.
    enum Settlement: Sendable {
        case answered(Data)
        case failed
    }

    struct Entry: Sendable {
        var sequence: UInt64
        var record: OutboxRecord
        var size: Int
        /// Whether an earlier try may still be running on the server: its answer was lost, or a last run ended
        /// while it may have been sending it. A 409 then may be the draft's "in progress".
        var mayBeInFlight = false
        /// How many 409s it got while it may have been in flight.
        var inFlightConflicts = 0
    }

    /// How many 409s a write that may be in flight gets before they count as a refusal.
    static let inFlightConflictLimit = 3

    struct Group {
        var queue: [Entry] = []
        var isSending = false
        var failures = 0
        /// The number of the pause it waits out, if it is paused.
        var pause: UInt64?
        /// Whether the server set the pause's length (`Retry-After`): another group's success does not end it.
        var isServerPause = false
        var isStopped = false

        var canSend: Bool { !isSending && pause == nil && !isStopped && !queue.isEmpty }
    }

    struct State {
        var groups: [String: Group] = [:]
        var count = 0
        var bytes = 0
        var pauses: UInt64 = 0
        var subscribers: [UInt64: AsyncStream<OutboxChange>.Continuation] = [:]
        var nextID: UInt64 = 0
        var listeners: [String: [ObjectIdentifier: any OutboxListener]] = [:]
        var idleWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        /// Whether its outbox went: nothing more is sent.
        var isClosed = false

        var isIdle: Bool { !groups.values.contains { $0.isSending || $0.canSend } }
    }

    let journal: OutboxJournal
    let policy: OutboxPolicy
    let damagedFiles: [String]
    let state = Locked(State())
    /// The next sequence number; held while a write is appended, so that writes reach the disk in their order.
    private let appending: Locked<UInt64>
    let clock: any Clock<Duration>
    private let send: @Sendable (OutboxRecord) async -> Outcome
    let describe: @Sendable (OutboxRecord, UInt64) -> OutboxWrite
    let owner = TaskOwner()

    init(
        journal: OutboxJournal,
        policy: OutboxPolicy,
        clock: any Clock<Duration>,
        describe: @escaping @Sendable (OutboxRecord, UInt64) -> OutboxWrite,
        send: @escaping @Sendable (OutboxRecord) async -> Outcome
    ) {
        self.journal = journal
        self.policy = policy
        self.clock = clock
        self.describe = describe
        self.send = send
        let loaded = journal.load()
        var damaged = loaded.damaged
        var last: UInt64 = 0
        state.withLock { state in
            for (sequence, data) in loaded.records {
                last = max(last, sequence)
                guard let record = try? JSONDecoder().decode(OutboxRecord.self, from: data), record.format == 1 else {
                    damaged.append(journal.setAside(sequence: sequence))
                    continue
                }
                var entry = Entry(sequence, record, data.count)
                entry.mayBeInFlight = true
                state.groups[record.group, default: Group()].queue.append(entry)
                state.count += 1
                state.bytes += data.count
            }
        }
        damagedFiles = damaged
        appending = Locked(last + 1)
    }

    deinit {
        let (subscribers, waiters) = state.withLock { state in
            defer { (state.subscribers, state.idleWaiters) = ([:], [:]) }
            return (Array(state.subscribers.values), Array(state.idleWaiters.values))
        }
        for subscriber in subscribers { subscriber.finish() }
        for waiter in waiters { waiter.resume() }
    }

    /// Starts sending every group that has writes.
    func start() {
        for group in state.withLock({ Array($0.groups.keys) }) { kick(group) }
    }

    /// Every queued write, in the order it was queued.
    var pending: [OutboxWrite] {
        state.withLock { state in state.groups.values.flatMap(\.queue) }
            .sorted { $0.sequence < $1.sequence }
            .map { describe($0.record, $0.sequence) }
    }

    // MARK: Queueing

    /// Writes `record` to disk, then calls `shown` with its sequence number (the store shows its value), then
    /// queues it in its group and starts the group if it is idle.
    ///
    /// - Throws: ``EndpointError/Kind/outboxFull`` past the bounds or when the disk refuses the file.
    func enqueue(_ record: OutboxRecord, shown: (UInt64) -> Void = { _ in }) throws(EndpointError) -> OutboxWrite {
        let data: Data
        do { data = try JSONEncoder().encode(record) } catch {
            throw EndpointError(.encodingFailed, "an outbox write could not be encoded: \(error)")
        }
        let appended = appending.withLock { (next: inout UInt64) -> Result<UInt64, EndpointError> in
            if let full = boundsProblem(adding: data.count) { return .failure(full) }
            let sequence = next
            do { try journal.append(data, sequence: sequence) } catch {
                return .failure(
                    EndpointError(.outboxFull, "the outbox could not keep the write: \(error)", underlyingError: error)
                )
            }
            next += 1
            shown(sequence)
            state.withLock { state in
                state.groups[record.group, default: Group()].queue.append(Entry(sequence, record, data.count))
                state.count += 1
                state.bytes += data.count
            }
            return .success(sequence)
        }
        let sequence = try appended.get()
        let write = describe(record, sequence)
        emit(.queued(write))
        kick(record.group)
        return write
    }

    /// Why a write of `size` bytes cannot be queued now, if it cannot.
    private func boundsProblem(adding size: Int) -> EndpointError? {
        let (count, bytes) = state.withLock { ($0.count, $0.bytes) }
        if count >= policy.maximumCount {
            return EndpointError(.outboxFull, "the outbox holds \(count) writes, its maximum; nothing was queued")
        }
        if bytes + size > policy.maximumSize {
            return EndpointError(
                .outboxFull,
                "the outbox holds \(bytes) bytes, and this write of \(size) would pass its maximum of "
                    + "\(policy.maximumSize); nothing was queued"
            )
        }
        return nil
    }

    // MARK: Listening

    /// Adds a store that shows writes: it is shown every queued write of its name at once, under the lock, so
    /// that no settlement can come before it.
    func attach(_ listener: any OutboxListener, as name: String, id: ObjectIdentifier) {
        state.withLock { state in
            guard state.listeners[name]?[id] == nil else { return }
            state.listeners[name, default: [:]][id] = listener
            let entries = state.groups.values.flatMap(\.queue).filter { $0.record.store == name }
            for entry in entries.sorted(by: { $0.sequence < $1.sequence }) {
                listener.show(entry.record, sequence: entry.sequence)
            }
        }
    }

    /// The store of `name` with `id`, if it listens.
    func listener(named name: String, id: ObjectIdentifier) -> (any OutboxListener)? {
        state.withLock { $0.listeners[name]?[id] }
    }

    /// Whether a store of `name` with `id` listens already.
    func isAttached(_ name: String, id: ObjectIdentifier) -> Bool {
        state.withLock { $0.listeners[name]?[id] != nil }
    }

    /// A new sequence of changes, starting with the files set aside when the outbox opened.
    func changes() -> OutboxChanges {
        let (stream, continuation) = AsyncStream<OutboxChange>.makeStream()
        for file in damagedFiles { continuation.yield(.damaged(file: file)) }
        let id = state.withLock { state in
            state.nextID += 1
            state.subscribers[state.nextID] = continuation
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return OutboxChanges(stream: stream)
    }

    /// Tells every subscriber, in the order changes happen.
    func emit(_ change: OutboxChange) {
        state.withLock { state in
            for subscriber in state.subscribers.values { subscriber.yield(change) }
        }
    }

    // MARK: Waiting

    /// Returns once nothing is being sent and nothing can be sent now: every group is empty, paused or stopped;
    /// at once when the caller's task is cancelled.
    func waitUntilIdle() async {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let isReady = state.withLock { state in
                    guard !state.isIdle, !Task.isCancelled else { return true }
                    state.idleWaiters[id] = waiter
                    return false
                }
                if isReady { waiter.resume() }
            }
        } onCancel: {
            state.withLock { $0.idleWaiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// Wakes the idle waiters if the queue is idle; call after a group stops sending.
    func wakeIdleWaiters() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard state.isIdle else { return [] }
            defer { state.idleWaiters = [:] }
            return Array(state.idleWaiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    // MARK: Sending

    /// Stops sending for good: no sender starts, and those running are cancelled (their writes stay queued).
    func close() {
        state.withLock { $0.isClosed = true }
        owner.cancelAll()
    }

    /// Starts a sender for `group` if it has writes it can send and none runs.
    func kick(_ group: String) {
        let starts = state.withLock { state -> Bool in
            guard !state.isClosed, state.groups[group]?.canSend == true else { return false }
            state.groups[group]?.isSending = true
            return true
        }
        guard starts else { return }
        owner.run { [weak self] in await self?.drain(group) }
    }

    /// Sends the writes of `group` one at a time, in order, until it is empty, paused or stopped.
    private func drain(_ group: String) async {
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
    private func next(in group: String) -> Entry? {
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
    private func isInFlightConflict(_ error: EndpointError, of entry: Entry, in group: String) -> Bool {
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
    private func markMayBeInFlight(_ entry: Entry, in group: String) {
        state.withLock { state in
            guard state.groups[group]?.queue.first?.sequence == entry.sequence else { return }
            state.groups[group]?.queue[0].mayBeInFlight = true
        }
    }

    /// Takes a settled write off the disk and the queue, tells the stores that showed it, then the subscribers.
    private func finish(_ entry: Entry, settlement: Settlement, change: OutboxChange) {
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

extension OutboxQueue.Entry {
    init(_ sequence: UInt64, _ record: OutboxRecord, _ size: Int) {
        self.init(sequence: sequence, record: record, size: size)
    }
}
