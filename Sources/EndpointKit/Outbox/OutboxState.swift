import Foundation

/// The whole state of an ``Outbox``'s queue as one value, and every change to it as one pure transition:
/// `state.apply(event, now:)` changes the value and returns the effects to carry out, in the order given.
///
/// Nothing here locks, waits, reads a clock or touches the disk: the outbox (`OutboxQueue` for a directory,
/// `PostgresOutboxSender` for a fleet's groups) applies one event under its lock and carries out the effects. The
/// rules, each proven by `OutboxStatePropertyTests` over random runs:
/// - one try at a time per group (so per write), and a group sends its writes in the order they were queued;
/// - a write that ends is settled in the stores, then reported, then taken off the disk: nothing leaves the disk
///   before the stores and the readers of the changes know how it ended;
/// - a write whose try may have reached the server (its answer was lost, the try was cancelled, or a last run may
///   have sent it) is never reported refused on a 409 (the IETF draft's "in progress"; a 409 the server marks as a
///   replayed answer is one), nor expired, nor rolled back: it is sent again until the server answers it, and past
///   its age it ends as ``OutboxChange/unknown(_:_:)``;
/// - a stopped group sends nothing until resumed;
/// - nothing is sent before the outbox starts or after it closes, and no group holding writes is left idle.
///
/// A paused group sends nothing until its own pause ends or a resume: that rule is kept by `dispatch`, which only
/// sends from an idle group, and is not checked by the property test on its own.
package struct OutboxState: Sendable {
    /// A queued write as the queue sees it.
    package struct Write: Sendable {
        package var sequence: UInt64
        package var record: OutboxRecord
        /// Its size on disk, counted against ``OutboxPolicy/maximumSize``.
        package var size: Int
        package var delivery = Delivery.neverTried

        package var group: String { record.group }

        package init(sequence: UInt64, record: OutboxRecord, size: Int, delivery: Delivery = .neverTried) {
            (self.sequence, self.record, self.size, self.delivery) = (sequence, record, size, delivery)
        }
    }

    /// What the outbox knows of whether a write reached the server.
    package enum Delivery: Sendable, Equatable {
        /// No try of it has been made, or every try was answered without applying it (408, 429).
        case neverTried
        /// A try may have reached the server: its answer was lost or was a 5xx, the try was cancelled, the server
        /// said it holds the key (409), or a last run may have been sending it. Only an answer ends it.
        case mayHaveReachedServer
    }

    /// What a group is doing.
    package enum Phase: Sendable, Equatable {
        /// Nothing: it sends its next write as soon as it may.
        case idle
        /// Its first write is on its way, as try number `attempt`.
        case sending(attempt: UInt64)
        /// It waits out pause number `number` after a failure, until `until` on the wall clock.
        case paused(number: UInt64, until: Date)
        /// A refusal stopped it (``OutboxPolicy/RefusalAction/stopGroup``): it sends nothing until a resume.
        case stopped
    }

    /// The writes of one group, in order, and what it does.
    package struct Group: Sendable {
        package var writes = WriteQueue()
        package var phase = Phase.idle
        /// Failed tries in a row: what the backoff grows with.
        package var failures = 0
    }

    /// How a try of a write ended.
    package enum Outcome: Sendable {
        /// The server took it: its status and body.
        case sent(statusCode: Int, body: Data)
        /// The server refused it; it will never be taken as it is.
        case refused(EndpointError)
        /// It could not be sent now; try again later, after `retryAfter` if the server said.
        case retry(EndpointError, retryAfter: Duration?)
        /// The try was cancelled: by the outbox closing, or by something else (a middleware, a transport).
        case cancelled
    }

    /// A change to the queue.
    package enum Event: Sendable {
        /// The writes a last run left, in order: each may have been on its way when that run ended.
        case loaded([Write])
        /// A write was kept on disk.
        case queued(Write)
        /// Sending may start (at once, or on the first resume).
        case started
        /// Someone asked to go on: every pause and stop ends.
        case resumed
        /// Try `attempt` of `group`'s first write ended; `jitter` (0...1) places the next wait in its window.
        case tryEnded(group: String, attempt: UInt64, outcome: Outcome, jitter: Double)
        /// Pause `number` of `group` has been waited out.
        case pauseEnded(group: String, number: UInt64)
        /// The outbox is going: nothing more is sent.
        case closed
        /// This instance may now send `group` (a fleet's lease on it was claimed): its writes, oldest first, each
        /// with what is known of its delivery, replace any the state held for it.
        case claimed(group: String, writes: [Write])
        /// This instance may no longer send `group` (its lease lapsed or was given back): the group and its writes
        /// leave the state, unsettled and unreported; a try of it on its way ends unheard.
        case released(group: String)
    }

    /// How a write ended, for the stores that showed it.
    package enum Settlement: Sendable {
        /// The server answered it with this body.
        case answered(Data)
        /// It was refused, or expired without reaching the server: roll it back.
        case failed
        /// Nobody knows whether the server applied it: ask the server.
        case unknown
    }

    /// What the readers of the changes hear.
    package enum Notice: Sendable {
        case queued(Write)
        case sent(Write, statusCode: Int)
        case refused(Write, EndpointError)
        /// Past its age, never having reached the server; it waited `age`.
        case expired(Write, age: Duration)
        /// Past its age while its outcome was unknown; it waited `age`.
        case unknown(Write, age: Duration)
        case paused(group: String, error: EndpointError, wait: Duration, until: Date)
        case resumed(group: String)
        case stopped(group: String)
    }

    /// One thing for the outbox to do.
    package enum Effect: Sendable {
        /// Start try `attempt` of `write`.
        case send(Write, attempt: UInt64)
        /// Tell the stores that show `write` how it ended.
        case settle(Write, Settlement)
        /// Tell the readers of the changes.
        case notify(Notice)
        /// Take the write numbered `sequence` off the disk.
        case remove(sequence: UInt64)
        /// Deliver `pauseEnded(group:number:)` after `wait`.
        case wake(group: String, number: UInt64, after: Duration)
    }

    package let policy: OutboxPolicy
    package private(set) var groups: [String: Group] = [:]
    /// How many writes are queued, and their bytes on disk.
    package private(set) var count = 0
    package private(set) var bytes = 0
    private(set) var isStarted = false
    private(set) var isClosed = false
    /// Numbers tries and pauses, so that a late event for an old one is known as such.
    private var counter: UInt64 = 0

    package init(policy: OutboxPolicy) { self.policy = policy }

    /// Whether nothing is on its way and nothing can go now: every group empty, paused or stopped, or the outbox
    /// not started or closed.
    package var isIdle: Bool {
        !groups.values.contains { group in
            if case .sending = group.phase { return true }
            return isStarted && !isClosed && group.phase == .idle && !group.writes.isEmpty
        }
    }

    /// Every queued write, oldest first.
    package var writes: [Write] { groups.values.flatMap(\.writes).sorted { $0.sequence < $1.sequence } }

    /// Applies `event` at `now` (the wall clock: what a write's age is measured on); returns what to do, in order.
    package mutating func apply(_ event: Event, now: Date) -> [Effect] {
        var effects: [Effect] = []
        switch event {
        case .loaded(let writes):
            for var write in writes {
                write.delivery = .mayHaveReachedServer
                add(write)
            }
        case .queued(let write):
            add(write)
            effects.append(.notify(.queued(write)))
            dispatch(write.group, now: now, &effects)
        case .started:
            isStarted = true
            for name in groups.keys.sorted() { dispatch(name, now: now, &effects) }
        case .resumed:
            isStarted = true
            resumeAll(now: now, &effects)
        case .tryEnded(let name, let attempt, let outcome, let jitter):
            guard let group = groups[name], group.phase == .sending(attempt: attempt), !group.writes.isEmpty else {
                break
            }
            end(name, outcome: outcome, jitter: jitter, now: now, &effects)
        case .pauseEnded(let name, let number):
            guard case .paused(number, _)? = groups[name]?.phase else { break }
            groups[name]?.phase = .idle
            effects.append(.notify(.resumed(group: name)))
            dispatch(name, now: now, &effects)
        case .closed:
            isClosed = true
        case .claimed(let name, let writes):
            drop(name)
            for write in writes { add(write) }
            dispatch(name, now: now, &effects)
        case .released(let name):
            drop(name)
        }
        return effects
    }

    /// Takes `name` and its writes out of the state and its counts.
    private mutating func drop(_ name: String) {
        guard let group = groups.removeValue(forKey: name) else { return }
        for write in group.writes {
            count -= 1
            bytes -= write.size
        }
    }

    private mutating func add(_ write: Write) {
        groups[write.group, default: Group()].writes.append(write)
        count += 1
        bytes += write.size
    }

    /// Ends every pause and stop, then lets each group send.
    private mutating func resumeAll(now: Date, _ effects: inout [Effect]) {
        for name in groups.keys.sorted() {
            switch groups[name]?.phase {
            case .paused?, .stopped?:
                groups[name]?.phase = .idle
                effects.append(.notify(.resumed(group: name)))
            default: break
            }
            dispatch(name, now: now, &effects)
        }
    }

    /// Starts a try of `name`'s first write if the group may send, ending on the way each write past its age.
    private mutating func dispatch(_ name: String, now: Date, _ effects: inout [Effect]) {
        guard isStarted, !isClosed, groups[name]?.phase == .idle, var group = groups.removeValue(forKey: name) else {
            return
        }
        while let first = group.writes.first {
            let age = Duration.seconds(now.timeIntervalSince(first.record.queuedAt))
            guard age > policy.maximumAge else {
                counter += 1
                group.phase = .sending(attempt: counter)
                groups[name] = group
                effects.append(.send(first, attempt: counter))
                return
            }
            group.writes.removeFirst()
            let isUnknown = first.delivery == .mayHaveReachedServer
            finish(
                first,
                isUnknown ? .unknown : .failed,
                notice: isUnknown ? .unknown(first, age: age) : .expired(first, age: age),
                &effects
            )
        }
        if !group.writes.isEmpty || group.phase != .idle { groups[name] = consume group }
    }

    /// Takes the first write of `name` through the end of its try.
    private mutating func end(_ name: String, outcome: Outcome, jitter: Double, now: Date, _ effects: inout [Effect]) {
        // Out of the table while it changes, so that its writes are not copied.
        guard let first = groups[name]?.writes.first, var group = groups.removeValue(forKey: name) else { return }
        switch outcome {
        case .sent(let status, let body):
            group.writes.removeFirst()
            group.failures = 0
            group.phase = .idle
            groups[name] = consume group
            finish(first, .answered(body), notice: .sent(first, statusCode: status), &effects)
            dispatch(name, now: now, &effects)
        case .refused(let error) where Self.isInProgress(error) && first.delivery == .mayHaveReachedServer:
            // The draft's "a request with this key is in progress": the earlier try may still be applied.
            groups[name] = consume group
            pause(name, error: error, retryAfter: error.retryAfter, jitter: jitter, now: now, &effects)
        case .refused(let error):
            group.writes.removeFirst()
            group.failures = 0
            let stops = policy.onRefusal == .stopGroup
            group.phase = stops ? .stopped : .idle
            groups[name] = consume group
            finish(first, .failed, notice: .refused(first, error), &effects)
            if stops { effects.append(.notify(.stopped(group: name))) }
            dispatch(name, now: now, &effects)
        case .retry(let error, let retryAfter):
            if Self.mayHaveReachedServer(error) { group.writes.first?.delivery = .mayHaveReachedServer }
            groups[name] = consume group
            pause(name, error: error, retryAfter: retryAfter, jitter: jitter, now: now, &effects)
        case .cancelled where isClosed:
            // The outbox is going: the write stays on disk for the next one, which sends it with its key.
            group.writes.first?.delivery = .mayHaveReachedServer
            group.phase = .idle
            groups[name] = consume group
        case .cancelled:
            group.writes.first?.delivery = .mayHaveReachedServer
            groups[name] = consume group
            let error = EndpointError(.cancelled, "a try of an outbox write was cancelled, not by the outbox")
            pause(name, error: error, retryAfter: nil, jitter: jitter, now: now, &effects)
        }
    }

    /// Whether `error` is a 409 that may mean "a request with this key is in progress": not one the server marks as
    /// the stored answer of an earlier try (`Idempotent-Replayed` or `Idempotency-Replayed: true`, as Stripe and
    /// others send), which is the outcome, a refusal.
    static func isInProgress(_ error: EndpointError) -> Bool {
        guard error.statusCode == 409 else { return false }
        let replayed = error.responseHeaders?["Idempotent-Replayed"] ?? error.responseHeaders?["Idempotency-Replayed"]
        return replayed?.lowercased() != "true"
    }

    /// Whether a failed try may still have been applied: the request may have left and no answer came
    /// (``EndpointError/mayHaveBeenSent``: not for a refused connection, a host with no address, no network, a
    /// failed TLS handshake or request data that could not be had), or the server failed while handling it.
    private static func mayHaveReachedServer(_ error: EndpointError) -> Bool {
        guard let status = error.statusCode else { return error.mayHaveBeenSent }
        return status >= 500 || status == 409
    }

    /// Pauses `name` after a failed try, for its backoff.
    private mutating func pause(
        _ name: String,
        error: EndpointError,
        retryAfter: Duration?,
        jitter: Double,
        now: Date,
        _ effects: inout [Effect]
    ) {
        guard var group = groups.removeValue(forKey: name) else { return }
        counter += 1
        group.failures += 1
        let wait = policy.backoff(afterFailures: group.failures, retryAfter: retryAfter, jitter: jitter)
        let until = now.addingTimeInterval(wait.inSeconds)
        group.phase = .paused(number: counter, until: until)
        groups[name] = group
        effects.append(.notify(.paused(group: name, error: error, wait: wait, until: until)))
        effects.append(.wake(group: name, number: counter, after: wait))
    }

    /// A write that ended: off the queue's counts; the stores settle it, the readers hear, then the file goes.
    private mutating func finish(_ write: Write, _ settlement: Settlement, notice: Notice, _ effects: inout [Effect]) {
        count -= 1
        bytes -= write.size
        effects.append(.settle(write, settlement))
        effects.append(.notify(notice))
        effects.append(.remove(sequence: write.sequence))
    }
}
