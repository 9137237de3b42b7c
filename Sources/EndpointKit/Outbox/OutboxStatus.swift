/// Where one write of an outbox stands: what ``OutboxStorage/status(of:)`` answers.
public enum OutboxStatus: Sendable, Hashable, CustomStringConvertible {
    /// Waiting for its group's earlier writes, for its group to be resumed, or (in a fleet) for an instance to
    /// claim its group.
    case queued
    /// The first of its group and tried at least once: on its way, or paused between tries.
    case sending
    /// The server took it, with this status.
    case sent(statusCode: Int)
    /// The server refused it (its status, when it answered).
    case refused(statusCode: Int?)
    /// It waited past ``OutboxPolicy/maximumAge`` without reaching the server.
    case expired
    /// It waited past its age while a try of it may have reached the server without an answer.
    case unknown
    /// What was kept of it could not be read: set aside, never sent.
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
