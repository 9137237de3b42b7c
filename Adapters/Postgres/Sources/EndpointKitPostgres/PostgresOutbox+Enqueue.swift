#if Postgres
import EndpointKit
import Foundation
import PostgresNIO

extension PostgresOutbox {
    /// Queues `endpoint` in `group` on `connection`, inside the transaction the caller has open on it: the write
    /// is kept, and senders are woken, only when that transaction commits; a rollback leaves nothing.
    ///
    ///     func placeOrder(_ id: String, postgres: PostgresClient, outbox: PostgresOutbox<EndpointKinds.Public>)
    ///         async throws
    ///     {
    ///         let logger = Logger(label: "orders")
    ///         try await postgres.withTransaction(logger: logger) { connection in
    ///             try await connection.query("INSERT INTO orders (id) VALUES (\(id))", logger: logger)
    ///             let charge = Endpoint<EndpointKinds.Public, Data>(method: .post, path: "orders/\(id)/charge")
    ///             try await outbox.enqueue(charge, group: "orders", on: connection)
    ///         }
    ///     }
    ///
    /// Writes to one group wait for each other's transactions (a row lock on the group, held to the commit), so
    /// that they are sent in the order they became visible. Without a `group` the write goes in the endpoint's
    /// ``EndpointKit/RequestOptions/outboxGroup``, or else in ``EndpointKit/OutboxWrite/defaultGroup``.
    ///
    /// - Returns: The write; ``status(of:)`` finds it by its ``EndpointKit/OutboxWrite/id`` from any instance once
    ///   the transaction has committed.
    /// - Throws: ``EndpointError/Kind/invalidRequest`` for an endpoint that cannot be sent or carries a credential;
    ///   ``EndpointError/Kind/encodingFailed`` for a body that cannot be encoded; ``EndpointError/Kind/outboxFull``
    ///   past the bounds; ``EndpointError/Kind/outboxStorageFailed`` when PostgreSQL refused the statements (the
    ///   caller's transaction is then aborted, and must not commit).
    @discardableResult
    public func enqueue<Response>(
        _ endpoint: Endpoint<Kind, Response>,
        group: String? = nil,
        on connection: PostgresConnection
    ) async throws(EndpointError) -> OutboxWrite {
        let record = try OutboxRecord(endpoint, group: group, client: client, policy: policy)
        let data: Data
        do { data = try JSONEncoder().encode(record) } catch {
            throw EndpointError(
                .encodingFailed,
                "an outbox write could not be encoded: \(EndpointError.hidingEncodedValue(error))"
            )
        }
        let sequence: Int64
        do {
            let queued = try await store.queued(on: connection)
            if let full = policy.boundsProblem(count: queued.count, bytes: queued.bytes, adding: data.count) {
                throw full
            }
            sequence = try await store.insert(id: record.id, group: record.group, record: data, on: connection)
        } catch {
            throw PostgresOutboxFailure.error("the outbox could not keep the write", error)
        }
        return record.write(sequence: UInt64(sequence), client: client)
    }

    /// Queues `endpoint` in `group` in a transaction of its own: kept when this returns.
    ///
    ///     func create(_ item: NewItem, outbox: PostgresOutbox<EndpointKinds.Public>) async throws {
    ///         let endpoint = Endpoint<EndpointKinds.Public, Data>(method: .post, path: "items", body: JSONBody(item))
    ///         try await outbox.enqueue(endpoint, group: "items")
    ///     }
    ///
    /// - Returns: The write, as ``changes()`` reports it.
    /// - Throws: As ``enqueue(_:group:on:)``.
    @discardableResult
    public func enqueue<Response>(
        _ endpoint: Endpoint<Kind, Response>,
        group: String? = nil
    ) async throws(EndpointError) -> OutboxWrite {
        let write: OutboxWrite
        do {
            write = try await withDeadline(configuration.timeout, doing: "the outbox could not keep the write") {
                try await withCarefulTransaction(self.postgres, logger: self.store.logger) { connection in
                    try await self.enqueue(endpoint, group: group, on: connection)
                }
            }
        } catch {
            throw PostgresOutboxFailure.error("the outbox could not keep the write", error)
        }
        sender.report(.queued(write))
        return write
    }
}
#endif
