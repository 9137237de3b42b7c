import Foundation

/// One write waiting in an ``Outbox``, as observers see it: its identity, its group and where it goes. Holds no
/// body and no header, and its URL is redacted like an error's.
public struct OutboxWrite: Sendable, Hashable, Identifiable, CustomStringConvertible {
    /// The group of every write queued without one, by ``Outbox/enqueue(_:group:)`` and
    /// ``ModelLoader/update(_:sending:through:group:)`` alike: one ordered stream, so that a create and a later
    /// update of one resource reach the server in that order. Name groups to let unrelated writes go in parallel.
    public static let defaultGroup = "default"

    /// The write's own ID, made when it was queued and kept across restarts.
    public var id: String
    /// The group it is sent in: writes of one group go out one at a time, in the order they were queued.
    public var group: String
    /// Its place in the queue: larger numbers were queued later.
    public var sequence: UInt64
    /// The `Idempotency-Key` it is sent with, every time: made once, when it was queued.
    public var idempotencyKey: String
    /// The method, and the URL with secret query values redacted (the base URL of the outbox's client joined
    /// with the endpoint's path).
    public var request: RequestSummary
    /// When it was queued, by the wall clock.
    public var queuedAt: Date

    /// `POST /items/42 (group items/42, #17)`.
    public var description: String { "\(request) (group \(group), #\(sequence))" }
}
