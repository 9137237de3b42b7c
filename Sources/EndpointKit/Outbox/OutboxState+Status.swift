extension OutboxState {
    /// Where queued write `id` stands: the first of its group and tried (on its way, or paused between tries) is
    /// sending, any other queued; `nil` when no group holds it.
    package func status(of id: String) -> OutboxStatus? {
        for group in groups.values {
            for (index, write) in group.writes.enumerated() where write.record.id == id {
                switch group.phase {
                case .sending, .paused: return index == 0 ? .sending : .queued
                case .idle, .stopped: return .queued
                }
            }
        }
        return nil
    }
}
