/// What happened in an ``Outbox``: what ``Outbox/changes()`` yields.
///
///     for await change in outbox.changes() {
///         switch change {
///         case .refused(let write, let error): print("\(write) was refused: \(error)")
///         case .paused(let group, let error, _): print("\(group) waits: \(error)")
///         default: break
///         }
///     }
public enum OutboxChange: Sendable {
    /// A write was queued (written to disk).
    case queued(OutboxWrite)
    /// A write was sent and the server took it, with this status: it is off the queue.
    case sent(OutboxWrite, statusCode: Int)
    /// The server refused a write (a 4xx other than 408 and 429, a 409 or 412 conflict, a 422 for a key reused with
    /// another body): it is off the queue and rolled back. The error holds the status and the body's start.
    case refused(OutboxWrite, EndpointError)
    /// A write waited past ``OutboxPolicy/maximumAge`` without reaching the server: it is off the queue and rolled
    /// back. The error's kind is ``EndpointError/Kind/writeExpired``.
    case expired(OutboxWrite, EndpointError)
    /// A write waited past ``OutboxPolicy/maximumAge`` while a try of it may have reached the server without an
    /// answer (a lost answer, a 5xx, a cancelled try, a 409 "in progress", or a last run that ended while sending
    /// it): it is off the queue, and the stores that show it ask the server for the model again (past the HTTP
    /// cache) instead of rolling it back. The error's kind is ``EndpointError/Kind/writeOutcomeUnknown``.
    case unknown(OutboxWrite, EndpointError)
    /// A group could not send (no network, a timeout, a 5xx, 408, 429, a 409 with `Retry-After`, a try cancelled
    /// by something other than the outbox, or a 409 for a write a try of which may still run on the server): it
    /// keeps its writes, in order, and tries again after `retryIn`, on ``Outbox/resume()``, or at the next start.
    case paused(group: String, error: EndpointError, retryIn: Duration)
    /// A paused or stopped group goes on sending.
    case resumed(group: String)
    /// A group stopped after a refusal, under ``OutboxPolicy/RefusalAction/stopGroup``; it keeps its later writes.
    case stopped(group: String)
    /// A file of the queue did not read back whole (a disk error, a hand edit): it was moved aside, into
    /// `damaged/` in the outbox's directory, and the rest of the queue went on. A sequence from
    /// ``Outbox/changes()`` starts with one of these for each file set aside when the outbox opened.
    case damaged(file: String)
}

extension OutboxChange: CustomStringConvertible {
    /// One readable line: `paused group items for 1.8 s: EndpointError.transportFailed | …`.
    public var description: String {
        switch self {
        case .queued(let write): "queued \(write)"
        case .sent(let write, let status): "sent \(write): \(status)"
        case .refused(let write, let error): "refused \(write): \(error)"
        case .expired(let write, let error): "expired \(write): \(error)"
        case .unknown(let write, let error): "unknown outcome of \(write): \(error)"
        case .paused(let group, let error, let wait): "paused group \(group) for \(wait.readable): \(error)"
        case .resumed(let group): "resumed group \(group)"
        case .stopped(let group): "stopped group \(group)"
        case .damaged(let file): "set aside damaged file \(file)"
        }
    }
}
