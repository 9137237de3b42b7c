#if Postgres
/// Where a write of a ``PostgresOutbox`` stands, as any instance reads it (``PostgresOutbox/status(of:)``).
public enum PostgresOutboxStatus: Sendable, Hashable, CustomStringConvertible {
    /// Waiting for its group's earlier writes, or for an instance to claim its group.
    case queued
    /// The first of its group, held by a live lease, and tried at least once: on its way, or paused between tries.
    case sending
    /// The server took it, with this status.
    case sent(statusCode: Int)
    /// The server refused it (its status, when it answered).
    case refused(statusCode: Int?)
    /// It waited past ``EndpointKit/OutboxPolicy/maximumAge`` without reaching the server.
    case expired
    /// It waited past its age while a try of it may have reached the server without an answer.
    case unknown
    /// Its row could not be read: set aside, never sent.
    case damaged

    /// `sent (201)`, `queued`, ….
    public var description: String {
        switch self {
        case .queued: "queued"
        case .sending: "sending"
        case .sent(let status): "sent (\(status))"
        case .refused(let status): "refused (\(status.map(String.init) ?? "no answer"))"
        case .expired: "expired"
        case .unknown: "unknown"
        case .damaged: "damaged"
        }
    }
}
#endif
