import Foundation

/// What runs an ``Outbox`` apart from its kind: it holds the directory's lock, the journal and the queue's state
/// (`OutboxState`, changed only by its `apply`), and carries out the effects each event returns. It also keeps who
/// listens: the stores that show writes, the readers of the changes, the callers waiting for it to be idle.
///
/// Its tasks (one try per group, one wait per pause) keep it alive until they end, so the directory's lock is
/// given up only after the last of them: no outbox opened later on the directory can send a write that one of them
/// is still sending.
final class OutboxQueue: Sendable {
    /// Everything that changes, under one lock: the queue's state, the readers of its changes, the idle waiters.
    struct Shared {
        var queue: OutboxState
        /// How the last writes that left the queue ended, for ``status(of:)``.
        var outcomes = OutboxOutcomes()
        var subscribers: [UInt64: AsyncStream<OutboxChange>.Continuation] = [:]
        var idleWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextID: UInt64 = 0

        mutating func makeID() -> UInt64 {
            nextID += 1
            return nextID
        }
    }

    let journal: OutboxJournal
    let policy: OutboxPolicy
    let damagedFiles: [String]
    let shared: Locked<Shared>
    /// The stores that show writes, by their model's name, then by registration. A lock of its own, taken inside
    /// `shared`'s or alone: a store that goes while it is being told of a write leaves at once.
    let listeners = Locked([String: [UInt64: any OutboxListener]]())
    /// The next sequence number; held while a write is appended, so that writes reach the disk in their order.
    private let appending: Locked<UInt64>
    let clock: any Clock<Duration>
    let send: @Sendable (OutboxRecord) async -> OutboxState.Outcome
    let describe: @Sendable (OutboxRecord, UInt64) -> OutboxWrite
    let owner = TaskOwner()
    /// The claim on the directory: given up when the queue goes, after its last task.
    private let lock: OutboxDirectoryLock

    init(
        journal: OutboxJournal,
        lock: OutboxDirectoryLock,
        policy: OutboxPolicy,
        clock: any Clock<Duration>,
        describe: @escaping @Sendable (OutboxRecord, UInt64) -> OutboxWrite,
        send: @escaping @Sendable (OutboxRecord) async -> OutboxState.Outcome
    ) {
        self.journal = journal
        self.lock = lock
        self.policy = policy
        self.clock = clock
        self.describe = describe
        self.send = send
        let loaded = journal.load()
        var damaged = loaded.damaged
        var writes: [OutboxState.Write] = []
        for (sequence, data) in loaded.records {
            guard let record = try? JSONDecoder().decode(OutboxRecord.self, from: data),
                OutboxRecord.readableFormats.contains(record.format)
            else {
                damaged.append(journal.setAside(sequence: sequence))
                continue
            }
            writes.append(OutboxState.Write(sequence: sequence, record: record, size: data.count))
        }
        var queue = OutboxState(policy: policy)
        _ = queue.apply(.loaded(writes), now: Date())
        shared = Locked(Shared(queue: queue))
        damagedFiles = damaged
        appending = Locked((loaded.records.map(\.sequence).max() ?? 0) + 1)
    }

    deinit {
        let (subscribers, waiters) = shared.withLock { shared in
            defer { (shared.subscribers, shared.idleWaiters) = ([:], [:]) }
            return (Array(shared.subscribers.values), Array(shared.idleWaiters.values))
        }
        for subscriber in subscribers { subscriber.finish() }
        for waiter in waiters { waiter.resume() }
    }

    /// Every queued write, in the order it was queued.
    var pending: [OutboxWrite] {
        shared.withLock { $0.queue.writes }.map { describe($0.record, $0.sequence) }
    }

    /// Where write `id` stands: in the queue, or among the last that left it.
    func status(of id: String) -> OutboxStatus? {
        shared.withLock { $0.queue.status(of: id) ?? $0.outcomes[id] }
    }

    // MARK: Queueing

    /// Writes `record` to disk, then calls `shown` with its sequence number (the store shows its value), then
    /// queues it in its group, which sends it when its earlier writes are settled.
    ///
    /// - Throws: ``EndpointError/Kind/outboxFull`` past the bounds or when the disk refuses the file.
    func enqueue(_ record: OutboxRecord, shown: (UInt64) -> Void = { _ in }) throws(EndpointError) -> OutboxWrite {
        let data: Data
        do { data = try JSONEncoder().encode(record) } catch {
            throw EndpointError(
                .encodingFailed,
                "an outbox write could not be encoded: \(EndpointError.hidingEncodedValue(error))"
            )
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
            // Under the appending lock, so that the queue takes writes in the order of their numbers.
            apply(.queued(OutboxState.Write(sequence: sequence, record: record, size: data.count)))
            return .success(sequence)
        }
        return describe(record, try appended.get())
    }

    /// Why a write of `size` bytes cannot be queued now, if it cannot.
    private func boundsProblem(adding size: Int) -> EndpointError? {
        let (count, bytes) = shared.withLock { ($0.queue.count, $0.queue.bytes) }
        return policy.boundsProblem(count: count, bytes: bytes, adding: size)
    }

    // MARK: Starting and stopping

    /// Starts sending every group that has writes, and the groups of writes queued from now on.
    func start() { apply(.started) }

    /// Ends every pause and stop, and starts sending if it had not.
    func resume() { apply(.resumed) }

    /// Stops sending for good: no try starts, and those running are cancelled (their writes stay queued).
    func close() {
        apply(.closed)
        owner.cancelAll()
    }

    /// Stops sending, and returns once every try and wait has ended.
    func closeAndWait() async {
        apply(.closed)
        await owner.cancelAllAndWait()
    }
}
