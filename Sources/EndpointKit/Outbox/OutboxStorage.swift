/// An outbox, whichever storage keeps its writes: ``Outbox`` keeps them in a directory of one process;
/// `PostgresOutbox` (the `Postgres` trait's `EndpointKitPostgres`) in PostgreSQL, for a fleet of instances.
///
/// Both run the same queue (one transition function decides what is sent, when, and how each write ends) and keep
/// the same promises: each group's writes go out one at a time in the order they were queued, with one
/// `Idempotency-Key` per write across every try and restart; a failure that may pass pauses the group with its
/// backoff; a refusal, an expiry and an unknown outcome end a write with a change saying so; the bounds are checked
/// when a write is queued; what cannot be read back is set aside and reported; no credential is kept. Code that
/// only queues writes and reads how they ended can take either:
///
///     func charge(_ order: String, through outbox: some OutboxStorage<EndpointKinds.Public>) async throws {
///         let endpoint = Endpoint<EndpointKinds.Public, Data>(method: .post, path: "orders/\(order)/charge")
///         let write = try await outbox.enqueue(endpoint, group: "orders")
///         print("\(write.id): \(try await outbox.status(of: write.id)?.description ?? "not held")")
///     }
///
/// Starting and stopping differ: an ``Outbox`` sends from when it opens until ``Outbox/close()``; a fleet's
/// outbox sends while its service runs.
public protocol OutboxStorage<Kind>: AnyObject, Sendable {
    /// The kind of the endpoints it queues; its request data is asked for at every try.
    associatedtype Kind: EndpointKind

    /// Bounds, backoff and what a refusal does.
    var policy: OutboxPolicy { get }

    /// Queues `endpoint` in `group` (`nil`: the endpoint's ``RequestOptions/outboxGroup``, or else
    /// ``OutboxWrite/defaultGroup``): kept when this returns, sent once the group's earlier writes are settled.
    ///
    /// - Throws: ``EndpointError/Kind/invalidRequest`` for an endpoint that cannot be sent or that carries a
    ///   credential; ``EndpointError/Kind/encodingFailed`` for a body that cannot be encoded;
    ///   ``EndpointError/Kind/outboxFull`` past the bounds; ``EndpointError/Kind/outboxStorageFailed`` when the
    ///   storage cannot be reached. Nothing is queued then.
    @discardableResult
    func enqueue<Response>(_ endpoint: Endpoint<Kind, Response>, group: String?) async throws(EndpointError)
        -> OutboxWrite

    /// What this outbox does from now on: the writes it queues and how those it sends end, its pauses, and what it
    /// sets aside. See ``OutboxChange``.
    func changes() -> OutboxChanges

    /// Where write `id` stands; `nil` for an ID the storage does not know (see each outbox for how long it
    /// remembers a write that ended).
    ///
    /// - Throws: ``EndpointError/Kind/outboxStorageFailed`` when the storage cannot be reached.
    func status(of id: String) async throws(EndpointError) -> OutboxStatus?

    /// Ends every pause and every stopped group's stop: each group with writes sends its next one.
    ///
    /// - Throws: ``EndpointError/Kind/outboxStorageFailed`` when the storage cannot be reached.
    func resume() async throws(EndpointError)
}
