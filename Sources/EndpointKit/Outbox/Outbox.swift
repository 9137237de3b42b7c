import Foundation

/// A durable queue of writes: each is kept on disk before anyone sees it, sent through the client's pipeline with
/// an `Idempotency-Key` made once, in order within its group, and kept through failures, crashes and restarts until
/// the server takes or refuses it. See <doc:WritesThatSurvive>. It is the embedded ``OutboxStorage``, for one
/// process; a fleet of servers shares one in PostgreSQL (see <doc:RunningAFleet>).
///
///     let outbox = try Outbox<EndpointKinds.Private>(directory: folder, client: client) { await currentToken() }
///     loader.attach(outbox)                                   // shows the writes still queued, as pending
///     try loader.update(renamed, sending: .rename(renamed), through: outbox)
///
/// - **Durable**: ``enqueue(_:group:)`` returns once the write is on disk (written to a temporary file, flushed,
///   renamed into place); a crash at any moment after that loses nothing, and one before leaves nothing half-made.
/// - **No credentials on disk**: what is stored is the endpoint's request before its kind prepares it. An endpoint
///   that carries a secret header or query item is refused. At each try, `requestData` gives the current token,
///   and the client's middleware (a ``BearerAuthentication``'s refresh) runs as for any call.
/// - **Exactly once, with the server's help**: every try of a write sends the same `Idempotency-Key`, across
///   restarts. A server that keeps the IETF draft applies it once however often it comes; one that does not may
///   apply a write twice when an answer was lost (at least once).
/// - **Ordered**: the writes of a group go out one at a time, in the order they were queued; groups go in
///   parallel. Writes queued without a group share one ordered stream (``OutboxWrite/defaultGroup``).
/// - **Offline**: a failure that may pass (no network, a timeout, 5xx, 408, 429, a 409 with `Retry-After`, a try
///   cancelled by something other than the outbox) pauses the group with its own backoff, keeping its writes in
///   order; it resumes after its wait, on ``resume()``, or at the next start.
/// - **Unknown is not refused**: a write a try of which may have reached the server is sent again through 409s
///   ("in progress") until the server answers it; past its age it ends as ``OutboxChange/unknown(_:_:)``, and the
///   stores that show it ask the server again instead of rolling it back.
/// - **Refusals** (any other 4xx) take the write off the queue, roll back its value in the stores that show it,
///   and reach ``changes()`` as ``OutboxChange/refused(_:_:)``; the group goes on, or stops, as
///   ``OutboxPolicy/onRefusal`` says.
/// - **Bounded**: ``OutboxPolicy/maximumCount``, ``OutboxPolicy/maximumSize`` and ``OutboxPolicy/maximumAge``;
///   a write past the first two is refused when queued, one past its age that never reached the server fails as
///   expired. None is dropped without a change saying so.
///
/// Sending starts when the outbox is made (or on ``resume()``, with `startsSending: false`), with the writes a
/// last run left, and stops when it goes or ``close()`` is called (a write on its way is cancelled, and stays
/// queued). Every method may be called from any task at once. One outbox at a time may open a directory, in any
/// process, and the directory stays locked until the last try of an outbox that went has ended: a second fails
/// with ``EndpointError/Kind/invalidRequest``.
public final class Outbox<Kind: EndpointKind>: OutboxStorage {
    /// The directory the writes are kept in.
    public let directory: URL
    /// Its bounds, backoff and refusal rule.
    public let policy: OutboxPolicy
    /// The client that sends the writes.
    let client: EndpointClient
    let queue: OutboxQueue

    /// Opens (or creates) the outbox in `directory` and, unless told not to, starts sending the writes it holds.
    ///
    /// To show every write a last run left before any is settled, open it with `startsSending: false`, attach the
    /// loaders (``ModelLoader/attach(_:)``), then call ``resume()``:
    ///
    ///     let outbox = try Outbox<EndpointKinds.Private>(directory: folder, client: client, startsSending: false) {
    ///         await currentToken()
    ///     }
    ///     loader.attach(outbox)
    ///     outbox.resume()
    ///
    /// - Parameters:
    ///   - directory: Where the writes are kept; made (readable by its owner only) if missing.
    ///   - client: The client that sends them, with its middleware, environment and clock.
    ///   - policy: Bounds, backoff and what a refusal does.
    ///   - startsSending: Whether to send at once; with `false`, nothing is sent (new writes wait too) until
    ///     ``resume()``.
    ///   - requestData: What the kind needs, asked for at every try (a current token). A throw pauses the group,
    ///     as a network failure does.
    /// - Throws: ``EndpointError/Kind/invalidRequest`` when the directory cannot be made or read, or another outbox
    ///   has it open.
    public init(
        directory: URL,
        client: EndpointClient,
        policy: OutboxPolicy = OutboxPolicy(),
        startsSending: Bool = true,
        requestData: @escaping @Sendable () async throws -> Kind.RequestData
    ) throws(EndpointError) {
        self.directory = directory
        self.policy = policy
        self.client = client
        let journal: OutboxJournal
        let lock: OutboxDirectoryLock
        do {
            // The lock first: a second outbox must not touch the first one's files, not even its leftovers.
            try FileManager.default.createDirectory(
                at: directory,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
            lock = try OutboxDirectoryLock(directory: directory)
            journal = try OutboxJournal(directory: directory)
        } catch let error as EndpointError {
            throw error
        } catch {
            throw EndpointError(
                .invalidRequest,
                "the outbox directory \(directory.path) cannot be used: \(error)",
                underlyingError: error
            )
        }
        queue = OutboxQueue(
            journal: journal,
            lock: lock,
            policy: policy,
            clock: client.clock,
            describe: { record, sequence in record.write(sequence: sequence, client: client) },
            send: { record in await Self.send(record, client: client, policy: policy, requestData: requestData) }
        )
        if startsSending { queue.start() }
    }

    /// Stops sending: a write on its way is cancelled and stays queued, for the next outbox on the directory. The
    /// directory stays locked until that try has ended; ``close()`` waits for it.
    deinit { queue.close() }

    /// Stops sending, and returns once every try on its way has ended and its outcome is applied: a write the
    /// server answered meanwhile is settled; any other stays queued, for the next outbox on the directory, which
    /// sends it with its key. After this, nothing more is sent, and the directory is free once the outbox goes.
    public func close() async { await queue.closeAndWait() }

    /// Opens an outbox whose kind needs no request data; see
    /// ``init(directory:client:policy:startsSending:requestData:)``.
    ///
    /// - Throws: ``EndpointError/Kind/invalidRequest`` when the directory cannot be made or read, or another outbox
    ///   has it open.
    public convenience init(
        directory: URL,
        client: EndpointClient,
        policy: OutboxPolicy = OutboxPolicy(),
        startsSending: Bool = true
    ) throws(EndpointError) where Kind.RequestData == Void {
        try self.init(directory: directory, client: client, policy: policy, startsSending: startsSending) {}
    }

    /// Queues `endpoint` in `group`: on disk when this returns, sent as soon as the group's earlier writes are
    /// settled. Its response is not decoded; ``changes()`` says how it ended.
    ///
    ///     try outbox.enqueue(.createItem(newItem), group: "items")
    ///
    /// Without a `group` the write goes in the endpoint's ``RequestOptions/outboxGroup``, or else in
    /// ``OutboxWrite/defaultGroup``. An endpoint with its own `Idempotency-Key` header keeps it; any other gets a
    /// new random key.
    ///
    /// - Returns: The write, as ``pending`` and ``changes()`` show it.
    /// - Throws: ``EndpointError/Kind/invalidRequest`` for an endpoint that cannot be sent or that carries a
    ///   credential; ``EndpointError/Kind/encodingFailed`` for a body that cannot be encoded;
    ///   ``EndpointError/Kind/outboxFull`` past the bounds or when the disk refuses it. Nothing is queued then.
    @discardableResult
    public func enqueue<Response>(
        _ endpoint: Endpoint<Kind, Response>,
        group: String? = nil
    ) throws(EndpointError) -> OutboxWrite {
        try queue.enqueue(OutboxRecord(endpoint, group: group, client: client, policy: policy))
    }

    /// Where write `id` stands: ``OutboxStatus/queued`` or ``OutboxStatus/sending`` while the outbox holds it, how
    /// it ended for the last 10,000 writes that ended since the outbox opened, and `nil` otherwise (a write that
    /// ended before, or whose file was set aside as damaged: see ``damagedFiles``).
    ///
    ///     let write = try outbox.enqueue(.createItem(newItem), group: "items")
    ///     print(outbox.status(of: write.id) ?? .queued)         // queued, then sending, then sent (201)
    public func status(of id: String) -> OutboxStatus? { queue.status(of: id) }

    /// Every queued write, oldest first.
    public var pending: [OutboxWrite] { queue.pending }

    /// The files set aside as damaged when the outbox opened (see ``OutboxChange/damaged(file:)``).
    public var damagedFiles: [String] { queue.damagedFiles }

    /// The outbox's changes from now on, until the loop stops: see ``OutboxChange``.
    public func changes() -> OutboxChanges { queue.changes() }

    /// Starts sending (an outbox opened with `startsSending: false`) and ends every pause and stop now: each group
    /// with writes sends its next one.
    public func resume() { queue.resume() }

    /// Returns once nothing is being sent and nothing can be sent now (every group empty, paused or stopped, or the
    /// outbox not started), or when the caller's task is cancelled: what a command-line tool waits for before it
    /// exits.
    public func waitUntilIdle() async { await queue.waitUntilIdle() }
}
