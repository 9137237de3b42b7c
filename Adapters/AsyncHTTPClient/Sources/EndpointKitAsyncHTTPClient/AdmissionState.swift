#if AsyncHTTPClient
import DequeModule

/// Which calls may hand their request to AsyncHTTPClient's pool, per origin: as many as the pool sends at once,
/// the rest waiting here, first come first served. `apply(_:)` is its only writer and returns what to do.
///
/// Why it exists: a request waiting in AsyncHTTPClient's own queue is removed from it on the event loop after its
/// task is cancelled, and a connection freed meanwhile is handed to it there. So when a caller cancels a batch in a
/// loop, the connection its first (sending) call frees goes to a call the loop has not reached yet, and that
/// request is sent. Here, a waiting call leaves the moment its task is cancelled; and once calls that wait are
/// cancelled (or a sending call is, while others wait), the origin admits no call until it has seen no such
/// cancellation for `grace`: a batch cancelled in a loop is over by then, and none of its calls is sent. An origin
/// where nobody waits never pauses: a caller that cancels one call and makes another is not slowed down.
struct AdmissionState: Sendable {
    /// A point in time, in nanoseconds of a monotonic clock.
    typealias Instant = UInt64
    /// A call, numbered by its driver.
    typealias Call = UInt64

    /// One origin's calls: those sent and not yet ended, and those waiting, oldest first.
    struct Origin: Sendable {
        var sending = Set<Call>()
        var limit: Int
        /// Waiting calls in arrival order; a cancelled one stays in `queue` until it reaches the front, but leaves
        /// `isWaiting` at once.
        var queue = Deque<Call>()
        var isWaiting = Set<Call>()
        /// No waiting call is admitted before this: the last cancellation seen, plus the grace.
        var quietAt: Instant = 0

        var isIdle: Bool { sending.isEmpty && isWaiting.isEmpty }
    }

    enum Event: Sendable, Equatable {
        /// A call asks to send a request to `origin`.
        case asked(Call, origin: OriginKey, now: Instant)
        /// A call's task was cancelled (before it asked, while it waits, or while it sends).
        case cancelled(Call, origin: OriginKey, now: Instant)
        /// A call admitted to `origin` ended, `cancelled` or not; `http2` says how the origin answered, when it
        /// did. A call that was not admitted, or ended already, changes nothing.
        case ended(Call, origin: OriginKey, cancelled: Bool, http2: Bool?, now: Instant)
        /// The time a ``Effect/wake(at:)`` asked for came.
        case woke(now: Instant)
    }

    enum Effect: Sendable, Equatable {
        /// The call may send now.
        case admit(Call)
        /// The call was waiting and is cancelled: it ends without sending.
        case refuse(Call)
        /// Apply ``Event/woke(now:)`` at this time (one wake at a time is asked for).
        case wake(at: Instant)
    }

    /// How many requests the pool sends to an origin at once over HTTP/1.1 (its connections per host), and over
    /// HTTP/2 (streams on its connection).
    let http1Limit: Int
    let http2Limit: Int
    /// How long an origin must go without a cancellation before a place is handed to a call that waits.
    let grace: UInt64
    /// How many origins are kept while idle, so that sequential calls reuse their storage; past that, an origin
    /// is forgotten once it is idle and quiet.
    let keptOrigins: Int
    private(set) var origins: [OriginKey: Origin] = [:]
    /// When the one wake asked for comes, if one was.
    private(set) var wakeAt: Instant?

    init(http1Limit: Int, http2Limit: Int, grace: UInt64, keptOrigins: Int = 64) {
        self.http1Limit = max(1, http1Limit)
        self.http2Limit = max(1, http2Limit)
        self.grace = grace
        self.keptOrigins = keptOrigins
    }

    /// Applies `event` and returns the calls to admit or refuse, and the wake to ask for, in that order.
    mutating func apply(_ event: Event) -> [Effect] {
        // Copied, so that the changes below, made while `origins` is being changed, do not read `self`.
        let (grace, http1Limit, http2Limit) = (grace, http1Limit, http2Limit)
        switch event {
        case .asked(let call, let origin, let now):
            return edit(origin, now: now) { state in
                if state.isWaiting.isEmpty, state.sending.count < state.limit, now >= state.quietAt {
                    state.sending.insert(call)
                    return [.admit(call)]
                }
                state.queue.append(call)
                state.isWaiting.insert(call)
                return []
            }
        case .cancelled(let call, let origin, let now):
            return edit(origin, now: now) { state in
                guard state.isWaiting.remove(call) != nil else { return nil }
                state.quietAt = max(state.quietAt, now + grace)
                return [.refuse(call)]
            }
        case .ended(let call, let origin, let cancelled, let http2, let now):
            return edit(origin, now: now) { state in
                guard state.sending.remove(call) != nil else { return nil }
                if cancelled, !state.isWaiting.isEmpty { state.quietAt = max(state.quietAt, now + grace) }
                if let http2 { state.limit = http2 ? http2Limit : http1Limit }
                return []
            }
        case .woke(let now):
            wakeAt = nil
            return origins.keys.sorted().flatMap { origin in edit(origin, now: now) { _ in nil } }
        }
    }

    /// Changes `origin`'s state in place by `change` (`nil`: the event changed nothing), then admits its oldest
    /// waiting calls while it has room and is quiet, asks for a wake when it has room but is not quiet yet, and
    /// forgets it when it is idle and quiet and more origins than `keptOrigins` are kept. One lookup of `origin`.
    private mutating func edit(_ origin: OriginKey, now: Instant, _ change: (inout Origin) -> [Effect]?) -> [Effect] {
        var quietAt: Instant?
        var isIdleAndQuiet = false
        var effects = Self.edit(
            &origins[origin, default: Origin(limit: http1Limit)],
            now: now,
            change,
            notQuietUntil: &quietAt,
            isIdleAndQuiet: &isIdleAndQuiet
        )
        if let quietAt, (wakeAt ?? .max) > quietAt {
            wakeAt = quietAt
            effects.append(.wake(at: quietAt))
        }
        if isIdleAndQuiet, origins.count > keptOrigins { origins[origin] = nil }
        return effects
    }

    private static func edit(
        _ state: inout Origin,
        now: Instant,
        _ change: (inout Origin) -> [Effect]?,
        notQuietUntil: inout Instant?,
        isIdleAndQuiet: inout Bool
    ) -> [Effect] {
        var effects = change(&state) ?? []
        admit(&state, now: now, into: &effects, notQuietUntil: &notQuietUntil)
        isIdleAndQuiet = state.isIdle && now >= state.quietAt
        return effects
    }

    private static func admit(
        _ state: inout Origin,
        now: Instant,
        into effects: inout [Effect],
        notQuietUntil: inout Instant?
    ) {
        // Cancelled calls at the front go now; one further back goes when it reaches the front.
        while let call = state.queue.first, !state.isWaiting.contains(call) { state.queue.removeFirst() }
        guard !state.queue.isEmpty, state.sending.count < state.limit else { return }
        guard now >= state.quietAt else {
            notQuietUntil = state.quietAt
            return
        }
        while state.sending.count < state.limit, let call = state.queue.popFirst() {
            guard state.isWaiting.remove(call) != nil else { continue }
            state.sending.insert(call)
            effects.append(.admit(call))
        }
        while let call = state.queue.first, !state.isWaiting.contains(call) { state.queue.removeFirst() }
    }
}
#endif
