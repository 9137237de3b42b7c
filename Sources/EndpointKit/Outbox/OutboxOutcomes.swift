/// How the last writes that left a directory outbox's queue ended, by ID: the most recent
/// ``OutboxOutcomes/limit``, the oldest forgotten first. Kept in memory: a new outbox on the directory knows none.
struct OutboxOutcomes: Sendable {
    /// How many outcomes are remembered.
    static let limit = 10_000

    private var statuses: [String: OutboxStatus] = [:]
    /// IDs in the order their writes ended; those before `start` are forgotten.
    private var order: [String] = []
    private var start = 0

    subscript(id: String) -> OutboxStatus? { statuses[id] }

    /// Remembers how the write `notice` ended, if it ended one.
    mutating func record(_ notice: OutboxState.Notice) {
        let ended: (OutboxState.Write, OutboxStatus)
        switch notice {
        case .sent(let write, let status): ended = (write, .sent(statusCode: status))
        case .refused(let write, let error): ended = (write, .refused(statusCode: error.statusCode))
        case .expired(let write, _): ended = (write, .expired)
        case .unknown(let write, _): ended = (write, .unknown)
        case .queued, .paused, .resumed, .stopped: return
        }
        let id = ended.0.record.id
        if statuses.updateValue(ended.1, forKey: id) == nil { order.append(id) }
        guard order.count - start > Self.limit else { return }
        statuses[order[start]] = nil
        start += 1
        if start * 2 >= order.count {
            order.removeFirst(start)
            start = 0
        }
    }
}
