import Foundation

/// A store that shows an outbox's writes: it is shown each queued write of its name, and told how each ended.
/// Called under the outbox's lock, so it must not call back into the outbox, nor touch the disk: what must wait
/// for the disk or the network it returns as ``Later``, which the outbox runs once its lock is released.
protocol OutboxListener: Sendable {
    /// Work a settlement leaves for after the outbox's lock: a confirmed value's save, a refetch.
    typealias Later = @Sendable () -> Void

    /// Shows the value the write carries as pending.
    func show(_ record: OutboxRecord, sequence: UInt64)
    /// The write numbered `sequence` ended: its answer, a failure that rolls it back, or an unknown outcome. The
    /// store shows it at once; the returned work (saving the confirmed value) runs after the lock, before the
    /// write's file is removed.
    func settle(_ record: OutboxRecord, sequence: UInt64, _ settlement: OutboxState.Settlement) -> Later?
    /// The writes of `group` wait until `until` (the group paused), or (`nil`) are on their way again.
    func group(_ group: String, waitsUntil until: Date?)
}
