/// How an ``Outbox`` bounds its queue, waits after failures, and treats a refused write.
///
///     var policy = OutboxPolicy()
///     policy.maximumAge = .seconds(24 * 3600)       // a write not sent within a day fails as expired
///     policy.onRefusal = .stopGroup                 // a refused write holds back the rest of its group
public struct OutboxPolicy: Sendable {
    /// What happens to the later writes of a group when the server refuses one.
    public enum RefusalAction: Sendable, Hashable {
        /// The refused write is rolled back and reported, and the group goes on with its next write. The default:
        /// one bad write does not hold back unrelated edits.
        case `continue`
        /// The refused write is rolled back and reported, and the group stops, keeping its later writes (shown as
        /// pending) until ``Outbox/resume()`` or the next start. For writes that only make sense in sequence.
        case stopGroup
    }

    /// How the idempotency key is written in the `Idempotency-Key` header.
    public enum KeyFormat: Sendable, Hashable {
        /// A quoted string, `"8e03…"`, as the IETF draft (a Structured Field string) defines the header. The default.
        case structuredField
        /// The key as it is, unquoted, as Stripe-style APIs take it.
        case bare
    }

    /// The most writes the queue holds; a write past it fails to queue with ``EndpointError/Kind/outboxFull``.
    public var maximumCount = 10_000
    /// The most bytes the queued writes take on disk together; a write past it fails to queue the same way.
    public var maximumSize = 64 << 20
    /// How long a write may wait to be sent; an older one is not sent, fails as
    /// ``EndpointError/Kind/writeExpired`` and is rolled back. Seven days unless set.
    public var maximumAge: Duration = .seconds(7 * 24 * 3600)
    /// What a refused write does to the rest of its group; ``RefusalAction/continue`` unless set.
    public var onRefusal = RefusalAction.continue
    /// The first wait of a paused group; each failure in a row doubles it, up to ``maximumBackoff``, and a
    /// server's `Retry-After` lengthens it.
    public var initialBackoff: Duration = .seconds(1)
    /// The longest wait between two tries of a paused group.
    public var maximumBackoff: Duration = .seconds(300)
    /// How the key is written in the header.
    public var keyFormat = KeyFormat.structuredField

    /// Creates the default policy: 10,000 writes, 64 MiB, seven days, refusals roll back and the group goes on,
    /// waits from 1 s to 5 min, the draft's quoted key.
    public init() {}

    /// The wait before the next try after `failures` failures in a row (at least 1): the backoff doubled per
    /// failure, capped, placed in the upper half of that by `jitter` (0...1, drawn at random by the outbox) so that
    /// clients that failed together do not all come back at once, and never shorter than `retryAfter`.
    func backoff(afterFailures failures: Int, retryAfter: Duration?, jitter: Double) -> Duration {
        let doublings = min(max(failures - 1, 0), 30)
        var wait = initialBackoff * (1 << doublings)
        if wait > maximumBackoff || wait < .zero { wait = maximumBackoff }
        let jittered = wait / 2 + wait / 2 * min(max(jitter, 0), 1)
        return max(jittered, retryAfter ?? .zero)
    }
}

extension OutboxPolicy {
    /// Why a write of `size` bytes cannot join a queue of `count` writes and `bytes` bytes under these bounds, if it
    /// cannot: the one rule of the directory's outbox and a fleet's.
    package func boundsProblem(count: Int, bytes: Int, adding size: Int) -> EndpointError? {
        if count >= maximumCount {
            return EndpointError(.outboxFull, "the outbox holds \(count) writes, its maximum; nothing was queued")
        }
        if bytes + size > maximumSize {
            return EndpointError(
                .outboxFull,
                "the outbox holds \(bytes) bytes, and this write of \(size) would pass its maximum of "
                    + "\(maximumSize); nothing was queued"
            )
        }
        return nil
    }
}
