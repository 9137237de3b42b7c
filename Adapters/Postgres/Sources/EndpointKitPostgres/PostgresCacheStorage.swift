#if Postgres
import EndpointKit
import Foundation
import Logging
import PostgresNIO

/// An ``EndpointKit/HTTPCache/Storage`` a fleet shares in PostgreSQL, with an in-memory tier in front: a response one
/// instance stored is served, or revalidated with its validators, by every other, and an instance that starts
/// finds the cache warm.
///
///     func cachedClient(postgres: PostgresClient, env: ServerEnvironment) async throws -> EndpointClient {
///         let storage = try await PostgresCacheStorage.prepared(postgres: postgres)
///         // Run `storage` in the service group beside the PostgresClient: its run() hears other instances'
///         // invalidations.
///         return EndpointClient(environment: env, cache: HTTPCache(storage: storage))
///     }
///
/// - **Partitioned as every cache is:** a response fetched with one credential is never served to a call with
///   another or with none. The partition is a keyed hash under a secret the fleet shares in the table (the first
///   instance makes it), and rows are named by keyed hashes of the URL and of the partition and method: neither a
///   URL nor a credential is written to the database. `Set-Cookie` is never stored.
/// - **Tiered:** a read looks in memory first, then in the table, and keeps what it found in memory; a store goes
///   to both. A response another instance stored later is seen once this instance's copy leaves memory or is
///   invalidated; an unsafe request's invalidation (RFC 9111 §4.4) reaches every instance that runs ``run()``.
/// - **Bounded:** ``PostgresCacheConfiguration/maximumSize`` bytes in the table, least recently used out first.
/// - **Coalesced:** of the calls that miss a key at once, in any instance, one fetches it and the others wait (up to
///   ``PostgresCacheConfiguration/fillWait``) for what it stores.
/// - **Never in the way:** a row that does not read back whole is a miss (and is removed), and so is a trip that
///   fails or takes longer than ``PostgresCacheConfiguration/timeout``; after a failure the table is left alone for
///   ``PostgresCacheConfiguration/retryInterval`` and calls use the in-memory tier. A storage never fails a call.
public final class PostgresCacheStorage: HTTPCache.Storage {
    /// The pool the cache's statements run on.
    public let postgres: PostgresClient
    /// Where the cache lives and how much it keeps.
    public let configuration: PostgresCacheConfiguration
    /// The fleet's secret, read from the table by ``prepared(postgres:configuration:logger:)``.
    public let partitionSecret: Data?
    /// The in-memory tier, whose keys are the rows' names.
    let memory: MemoryCacheStorage
    let names: CacheKeyNames
    let logger: Logger
    private let start = ContinuousClock.now
    private let reach: Locked<CacheTableReach>
    /// Bytes this instance has written to the table since it last trimmed it.
    private let writtenSinceTrim = Locked(0)
    /// The fetches this instance claimed (``waitForFill(of:upTo:)``), by row name, with the claim's holder.
    let claims = Locked([HTTPCache.Key: String]())
    /// What the listener did, for tests to wait on: it began to listen (the in-memory tier emptied first), or it
    /// forgot what an invalidation named. Only the newest are kept, so nothing grows when nobody reads it.
    let listenerEvents = AsyncStream<ListenerEvent>.makeStream(bufferingPolicy: .bufferingNewest(64))

    /// What ``listenerEvents`` tells.
    enum ListenerEvent: Sendable, Hashable {
        case listening
        case forgot(String)
    }

    /// Prepares the cache's tables in PostgreSQL (made, or migrated; instances starting together do it once), reads
    /// the fleet's secret (made by the first instance) and returns the storage. The pool must be running.
    ///
    /// - Throws: ``EndpointKit/EndpointError/Kind/invalidRequest`` for a configuration that cannot be used;
    ///   ``EndpointKit/EndpointError/Kind/storageFailed`` when PostgreSQL cannot be reached within
    ///   ``PostgresRateLimits/prepareTimeout`` or holds a newer version of the tables.
    public static func prepared(
        postgres: PostgresClient,
        configuration: PostgresCacheConfiguration = PostgresCacheConfiguration(),
        logger: Logger = Logger(label: "endpointkit.cache")
    ) async throws(EndpointError) -> PostgresCacheStorage {
        if let problem = configuration.problem { throw EndpointError(.invalidRequest, problem) }
        let schema = configuration.schema
        let secret = try await prepare(postgres, schema: schema, logger: logger)
        return PostgresCacheStorage(postgres, configuration, secret: secret, logger: logger)
    }

    private init(_ postgres: PostgresClient, _ configuration: PostgresCacheConfiguration, secret: Data, logger: Logger)
    {
        self.postgres = postgres
        self.configuration = configuration
        self.logger = logger
        partitionSecret = secret
        names = CacheKeyNames(secret: secret)
        memory = MemoryCacheStorage(maximumSize: configuration.memorySize, maximumEntrySize: configuration.entryBound)
        reach = Locked(CacheTableReach(retryInterval: configuration.retryInterval.wholeMicroseconds))
    }

    // MARK: Storage

    /// The variants stored under `key`: from memory, else from the table (then kept in memory); none when the
    /// row is damaged or the table does not answer in time.
    public func entries(for key: HTTPCache.Key) async -> [HTTPCache.Entry] {
        let local = named(key)
        let kept = memory.entries(for: local)
        guard kept.isEmpty else { return kept }
        guard let variants = await table("a cached response could not be read", { try await self.read(local) }) else {
            return []
        }
        for entry in variants.reversed() { memory.store(entry, for: local) }
        return variants
    }

    /// Stores `entry` under `key` in memory and in the table, replacing the variant with its secondary key.
    public func store(_ entry: HTTPCache.Entry, for key: HTTPCache.Key) async {
        let local = named(key)
        memory.store(entry, for: local)
        let written = await table("a response could not be stored in the shared cache") {
            try await self.write(entry, local)
        }
        guard let written, written > 0 else { return }
        let due = writtenSinceTrim.withLock { total -> Bool in
            total += written
            guard total >= max(1, configuration.maximumSize / 16) else { return false }
            total = 0
            return true
        }
        if due { await table("the shared cache could not be trimmed") { try await self.trim() } }
    }

    /// Removes every variant under `key`, here and in the table.
    public func removeEntries(for key: HTTPCache.Key) async {
        let local = named(key)
        memory.removeEntries(for: local)
        await table("a cached response could not be removed") { try await self.delete(local) }
    }

    /// Removes every entry for `url`, here and in the table, and tells the instances that listen to forget theirs.
    public func removeEntries(forURL url: String) async {
        let name = names.name(forURL: url)
        memory.removeEntries(forURL: name)
        await table("a URL's cached responses could not be removed") { try await self.delete(urlNamed: name) }
    }

    /// Removes everything, here and in the table, and tells the instances that listen to forget theirs.
    public func removeAll() async {
        memory.removeAll()
        await table("the shared cache could not be emptied") { try await self.deleteAll() }
    }

    // MARK: Internals

    /// `key` as the rows name it: keyed hashes of its URL and of its partition and method.
    func named(_ key: HTTPCache.Key) -> HTTPCache.Key {
        HTTPCache.Key(partition: names.name(forPartitionOf: key), method: key.method, url: names.name(forURL: key.url))
    }

    /// Runs `body` on the table unless it is being left alone, within the configured time; `nil` when it was left
    /// alone, failed (logged, and the table is left alone for a while) or was cancelled.
    @discardableResult
    func table<T: Sendable>(_ what: String, _ body: @escaping @Sendable () async throws -> T) async -> T? {
        guard reach.withLock({ $0.apply(.route(now: now())) }) == .useTable else { return nil }
        do {
            let value = try await withDeadline(configuration.timeout, doing: what, kind: .storageFailed, body)
            _ = reach.withLock { $0.apply(.answered) }
            return value
        } catch {
            // A cancelled call says nothing of the table.
            guard !(error is CancellationError), !Task.isCancelled else { return nil }
            _ = reach.withLock { $0.apply(.failed(now: now())) }
            let reason = PostgresOutboxFailure.error(what, error, kind: .storageFailed).message
            logger.warning(
                "http cache: \(reason); the shared table is left alone for \(configuration.retryInterval.readable)"
            )
            return nil
        }
    }

    /// Microseconds of the process's clock since the storage was made, from 1.
    private func now() -> CacheTableReach.Time { start.duration(to: .now).wholeMicroseconds + 1 }
}
#endif
