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
        /// Whether sending has started (at once, or on the first `resume()`).
        var isStarted = false

        var isIdle: Bool { !groups.values.contains { $0.isSending || (isStarted && !isClosed && $0.canSend) } }
    }

    let journal: OutboxJournal
    let policy: OutboxPolicy
    let damagedFiles: [String]
    let state = Locked(State())
    /// The next sequence number; held while a write is appended, so that writes reach the disk in their order.
    private let appending: Locked<UInt64>
    let clock: any Clock<Duration>
    let send: @Sendable (OutboxRecord) async -> Outcome
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

    /// Starts sending every group that has writes, and the groups of writes queued from now on.
    func start() {
        let groups = state.withLock { state in
            state.isStarted = true
            return Array(state.groups.keys)
        }
        for group in groups { kick(group) }
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
}

extension OutboxQueue.Entry {
    init(_ sequence: UInt64, _ record: OutboxRecord, _ size: Int) {
        self.init(sequence: sequence, record: record, size: size)
    }
}
