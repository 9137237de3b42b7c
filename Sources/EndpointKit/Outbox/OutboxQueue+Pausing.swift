/// How groups wait: paused after a failure, with backoff; stopped after a refusal, under `.stopGroup`; and how
/// they go on.
extension OutboxQueue {
    /// Pauses `group` after a failed try: it keeps its writes, and tries again after its backoff (or sooner, on
    /// a success elsewhere or ``resume(pausedOnly:)``).
    func pause(_ group: String, error: EndpointError, retryAfter: Duration?) {
        let paused = state.withLock { state -> (number: UInt64, wait: Duration)? in
            guard var current = state.groups[group] else { return nil }
            state.pauses += 1
            current.failures += 1
            current.pause = state.pauses
            current.isServerPause = retryAfter != nil
            state.groups[group] = current
            return (state.pauses, policy.backoff(afterFailures: current.failures, retryAfter: retryAfter))
        }
        guard let paused else { return }
        emit(.paused(group: group, error: error, retryIn: paused.wait))
        let clock = clock
        owner.run { [weak self] in
            do { try await clock.sleep(for: paused.wait) } catch { return }
            self?.endPause(paused.number, of: group)
        }
    }

    /// Ends pause `number` of `group` when it still waits it out.
    private func endPause(_ number: UInt64, of group: String) {
        let ended = state.withLock { state -> Bool in
            guard state.groups[group]?.pause == number else { return false }
            state.groups[group]?.pause = nil
            return true
        }
        guard ended else { return }
        emit(.resumed(group: group))
        kick(group)
    }

    /// Stops `group` after a refusal: it keeps its later writes until ``resume(pausedOnly:)``.
    func stop(_ group: String) {
        let stops = state.withLock { state -> Bool in
            guard state.groups[group]?.queue.isEmpty == false else { return false }
            state.groups[group]?.isStopped = true
            return true
        }
        if stops { emit(.stopped(group: group)) }
    }

    /// Ends every pause (and, unless `pausedOnly`, every stop) and starts the groups that can send. With
    /// `pausedOnly` (another group's success), a pause whose length the server set (`Retry-After`) stands.
    func resume(pausedOnly: Bool = false) {
        let resumed = state.withLock { state -> [String] in
            var resumed: [String] = []
            for (name, group) in state.groups
            where (group.pause != nil && !(pausedOnly && group.isServerPause)) || (!pausedOnly && group.isStopped) {
                state.groups[name]?.pause = nil
                if !pausedOnly { state.groups[name]?.isStopped = false }
                resumed.append(name)
            }
            return resumed
        }
        for group in resumed {
            emit(.resumed(group: group))
            kick(group)
        }
    }
}
