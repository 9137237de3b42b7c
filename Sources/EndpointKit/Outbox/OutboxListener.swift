import Foundation

/// A store that shows an outbox's writes: it is shown each queued write of its name, and told how each ended.
/// Called under the outbox's lock, so it must not call back into the outbox.
protocol OutboxListener: Sendable {
    /// Shows the value the write carries as pending.
    func show(_ record: OutboxRecord, sequence: UInt64)
    /// The write numbered `sequence` ended: its answer, a failure that rolls it back, or an unknown outcome.
    func settle(_ record: OutboxRecord, sequence: UInt64, _ settlement: OutboxState.Settlement)
    /// The writes of `group` wait until `until` (the group paused), or (`nil`) are on their way again.
    func group(_ group: String, waitsUntil until: Date?)
}
