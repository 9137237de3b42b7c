import Foundation

extension OutboxChange {
    /// What the readers of the changes see of `notice`, each write as `describe` shows it.
    package init(
        _ notice: OutboxState.Notice,
        policy: OutboxPolicy,
        describe: (OutboxState.Write) -> OutboxWrite
    ) {
        self = Self.make(notice, policy: policy, describe: describe)
    }

    private static func make(
        _ notice: OutboxState.Notice,
        policy: OutboxPolicy,
        describe: (OutboxState.Write) -> OutboxWrite
    ) -> OutboxChange {
        switch notice {
        case .queued(let write):
            return .queued(describe(write))
        case .sent(let write, let status):
            return .sent(describe(write), statusCode: status)
        case .refused(let write, let error):
            return .refused(describe(write), error)
        case .expired(let write, let age):
            let described = describe(write)
            let error = EndpointError(
                .writeExpired,
                "\(described) waited \(age.readable), past the outbox's maximum age of "
                    + "\(policy.maximumAge.readable); it never reached the server, and was rolled back",
                request: described.request
            )
            return .expired(described, error)
        case .unknown(let write, let age):
            let described = describe(write)
            let error = EndpointError(
                .writeOutcomeUnknown,
                "\(described) waited \(age.readable), past the outbox's maximum age of "
                    + "\(policy.maximumAge.readable), and a try of it may have reached the server without an "
                    + "answer; the stores that show it ask the server for the model again",
                request: described.request
            )
            return .unknown(described, error)
        case .paused(let group, let error, let wait, _):
            return .paused(group: group, error: error, retryIn: wait)
        case .resumed(let group):
            return .resumed(group: group)
        case .stopped(let group):
            return .stopped(group: group)
        }
    }
}
