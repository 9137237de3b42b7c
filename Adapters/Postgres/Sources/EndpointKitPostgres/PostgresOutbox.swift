#if Postgres
import EndpointKit
import Foundation
import Logging
import PostgresNIO

/// An outbox that a fleet of servers shares in PostgreSQL: a write is queued in the caller's own transaction, and
/// any instance sends it, once, with one `Idempotency-Key` across every try and every instance. See the article
/// *Running a fleet* in EndpointKit's documentation.
///
///     func placeOrder(_ id: String, postgres: PostgresClient, client: EndpointClient) async throws {
///         let outbox = try PostgresOutbox<EndpointKinds.Public>(postgres: postgres, client: client)
///         let logger = Logger(label: "orders")
///         try await postgres.withTransaction(logger: logger) { connection in
///             try await connection.query("INSERT INTO orders (id) VALUES (\(id))", logger: logger)
///             let charge = Endpoint<EndpointKinds.Public, Data>(method: .post, path: "orders/\(id)/charge")
///             try await outbox.enqueue(charge, group: "orders", on: connection)
///         }
///     }
///
/// - **Transactional**: ``enqueue(_:group:on:)`` writes to the caller's connection; the write exists only if the
///   caller's transaction commits, and senders are woken (`NOTIFY`) when it does.
/// - **One order per group, any instance**: an instance sends a group only under a lease on it (claimed with
///   `FOR UPDATE SKIP LOCKED`, renewed while it sends, taken over by another once it lapses), and everything it
///   changes in the group is fenced by the lease's number, so an instance whose lease lapsed changes nothing.
///   It stops sending before its lease can lapse, so no two instances try one group at once.
/// - **The same rules as ``Outbox``**: both are an ``EndpointKit/OutboxStorage``, and the queue's state is the same
///   transition function; backoff, the refusal rule, ``OutboxChange/unknown(_:_:)``, the bounds and the age hold
///   as there, and no credential is stored.
///
/// Sending runs in ``run()`` (a swift-service-lifecycle `Service`): put the outbox in the app's `ServiceGroup`
/// beside its `PostgresClient`. A graceful shutdown lets the tries on their way end, leaves the rest queued and
/// gives the leases back. Enqueueing needs no ``run()``, so an instance may only queue.
public final class PostgresOutbox<Kind: EndpointKind>: OutboxStorage {
    /// The client that sends the writes.
    public let client: EndpointClient
    /// Bounds, backoff and what a refusal does.
    public let policy: OutboxPolicy
    /// The schema, this instance's name, leases and polling.
    public let configuration: PostgresOutboxConfiguration
    let postgres: PostgresClient
    let store: PostgresOutboxStore
    let sender: PostgresOutboxSender

    /// An outbox in `postgres` (whose `run()` the caller runs), sending through `client`.
    ///
    /// - Parameters:
    ///   - postgres: The pool the outbox's own statements use; enqueues in a transaction use the caller's
    ///     connection.
    ///   - client: The client that sends the writes, with its middleware, environment and clock.
    ///   - policy: Bounds, backoff and what a refusal does, as for ``Outbox``.
    ///   - configuration: The schema, this instance's name, leases and polling.
    ///   - logger: Where the outbox logs what it cannot do (a lost listening connection, a failed renewal).
    ///   - requestData: What the kind needs, asked for at every try (a current token).
    /// - Throws: ``EndpointError/Kind/invalidRequest`` for a configuration that cannot be used.
    public init(
        postgres: PostgresClient,
        client: EndpointClient,
        policy: OutboxPolicy = OutboxPolicy(),
        configuration: PostgresOutboxConfiguration = PostgresOutboxConfiguration(),
        logger: Logger = Logger(label: "endpointkit.outbox"),
        requestData: @escaping @Sendable () async throws -> Kind.RequestData
    ) throws(EndpointError) {
        if let problem = configuration.problem { throw EndpointError(.invalidRequest, problem) }
        (self.postgres, self.client, self.policy, self.configuration) = (postgres, client, policy, configuration)
        store = PostgresOutboxStore(
            client: postgres,
            schema: configuration.schema,
            instance: configuration.instance,
            logger: logger,
            timeout: configuration.timeout
        )
        sender = PostgresOutboxSender(
            store: store,
            policy: policy,
            configuration: configuration,
            clock: client.clock,
            describe: { record, sequence in record.write(sequence: sequence, client: client) },
            send: { record in await Outbox<Kind>.send(record, client: client, policy: policy, requestData: requestData)
            }
        )
    }

    /// An outbox whose kind needs no request data; see ``init(postgres:client:policy:configuration:logger:requestData:)``.
    ///
    /// - Throws: ``EndpointError/Kind/invalidRequest`` for a configuration that cannot be used.
    public convenience init(
        postgres: PostgresClient,
        client: EndpointClient,
        policy: OutboxPolicy = OutboxPolicy(),
        configuration: PostgresOutboxConfiguration = PostgresOutboxConfiguration(),
        logger: Logger = Logger(label: "endpointkit.outbox")
    ) throws(EndpointError) where Kind.RequestData == Void {
        try self.init(postgres: postgres, client: client, policy: policy, configuration: configuration, logger: logger)
        {}
    }

    /// Creates the outbox's tables, or brings them to this version: call it once at start-up, before the first
    /// enqueue (``run()`` calls it too).
    ///
    /// - Throws: ``EndpointError/Kind/outboxStorageFailed`` when PostgreSQL cannot be reached, or when the schema
    ///   is newer than this EndpointKit (then nothing in it was changed).
    public func prepare() async throws(EndpointError) {
        let (postgres, schema, logger) = (postgres, configuration.schema, store.logger)
        do {
            try await withDeadline(configuration.timeout, doing: "the outbox schema \(schema) could not be prepared") {
                try await PostgresOutboxSchema.prepare(postgres, schema: schema, logger: logger)
            }
        } catch {
            throw PostgresOutboxFailure.error("the outbox schema \(schema) could not be prepared", error)
        }
    }

    /// The outbox's changes in this instance from now on: what it sent, refused, expired or found unknown (each
    /// once the database holds it, so that ``status(of:)`` then agrees), its pauses, the rows it set aside, and the
    /// writes it queued with ``enqueue(_:group:)``. A group's changes come in the order they happened.
    public func changes() -> OutboxChanges { sender.changes() }

    /// Where write `id` stands, as any instance sees it; `nil` for an ID the outbox does not hold: never queued, in a
    /// transaction not yet committed, or ended longer ago than ``PostgresOutboxConfiguration/keepSettled``.
    ///
    /// - Throws: ``EndpointError/Kind/outboxStorageFailed`` when PostgreSQL cannot be reached.
    public func status(of id: String) async throws(EndpointError) -> OutboxStatus? {
        do {
            return try await withDeadline(configuration.timeout, doing: "the outbox could not read write \(id)") {
                try await self.store.status(of: id)
            }
        } catch {
            throw PostgresOutboxFailure.error("the outbox could not read write \(id)", error)
        }
    }

    /// Ends every stopped group's stop, in every instance, and every pause in this one.
    ///
    /// - Throws: ``EndpointError/Kind/outboxStorageFailed`` when PostgreSQL cannot be reached.
    public func resume() async throws(EndpointError) {
        do {
            try await withDeadline(configuration.timeout, doing: "the outbox could not resume its groups") {
                try await self.store.resumeAll()
            }
        } catch {
            throw PostgresOutboxFailure.error("the outbox could not resume its groups", error)
        }
        await sender.apply(.resumed)
        sender.wake()
    }
}
#endif
