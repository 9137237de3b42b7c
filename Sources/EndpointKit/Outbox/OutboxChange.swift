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
    /// A write waited past ``OutboxPolicy/maximumAge``: it was not sent, and is off the queue and rolled back.
    case expired(OutboxWrite, EndpointError)
    /// A group could not send (no network, a timeout, a 5xx, 408, 429, or a 409 with `Retry-After`): it keeps its
    /// writes, in order, and tries again after `retryIn`, on the next success of any group (unless the server set
    /// the wait with `Retry-After`), on ``Outbox/resume()``, or at the next start.
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
