#if Postgres
import EndpointKit
import ServiceLifecycle

extension PostgresOutbox: Service {
    /// Prepares the tables, then sends until a graceful shutdown or until the caller's task is cancelled.
    ///
    /// A graceful shutdown (the `ServiceGroup`'s, or ``stop()``) lets each try on its way end and settles it,
    /// leaves every other write queued, gives every lease back at once (so another instance takes the groups over
    /// without waiting for them to lapse), and returns. Cancelling the calling task instead cancels the tries on
    /// their way; their writes stay queued, marked as possibly sent, and are sent again with their keys.
    ///
    /// - Throws: ``EndpointError/Kind/outboxStorageFailed`` when the tables cannot be prepared (PostgreSQL cannot
    ///   be reached, or its schema is newer than this EndpointKit). Once sending, a lost database pauses the work
    ///   and it resumes when the database is back; nothing is thrown.
    public func run() async throws {
        try await prepare()
        await withGracefulShutdownHandler {
            await sender.run()
        } onGracefulShutdown: {
            self.sender.stop()
        }
    }

    /// Starts a graceful stop of ``run()``, as a `ServiceGroup`'s graceful shutdown does.
    public func stop() { sender.stop() }
}
#endif
