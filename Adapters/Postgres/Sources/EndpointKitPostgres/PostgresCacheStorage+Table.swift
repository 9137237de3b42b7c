#if Postgres
import EndpointKit
import Foundation
import Logging
import PostgresNIO

/// The cache's statements on its table (``PostgresCacheSchema``), each one trip but a store's (a read, then a write)
/// and a trim's (a transaction).
extension PostgresCacheStorage {
    /// Makes or migrates the tables, then reads the fleet's secret, made by whichever instance gets there first.
    static func prepare(_ postgres: PostgresClient, schema: String, logger: Logger) async throws(EndpointError)
        -> Data
    {
        let what = "the cache schema \(schema) could not be prepared"
        do {
            return try await withDeadline(PostgresRateLimits.prepareTimeout, doing: what, kind: .storageFailed) {
                try await PostgresCacheSchema.tables.prepare(postgres, schema: schema, logger: logger)
                let offered = ByteBuffer(bytes: CacheKeyNames.randomSecret())
                let query: PostgresQuery = """
                    WITH made AS (
                        INSERT INTO \(unescaped: schema).cache_secret (secret) VALUES (\(offered))
                        ON CONFLICT DO NOTHING RETURNING secret
                    )
                    SELECT secret FROM made UNION ALL SELECT secret FROM \(unescaped: schema).cache_secret
                    """
                for try await secret in try await postgres.query(query, logger: logger).decode(Data.self) {
                    return secret
                }
                throw EndpointError(.storageFailed, "\(what): the secret's row could not be read")
            }
        } catch is CancellationError {
            throw EndpointError(.cancelled, "\(what): the call was cancelled")
        } catch {
            throw PostgresOutboxFailure.error(what, error, kind: .storageFailed)
        }
    }

    /// The variants of the row named `key`, its use renewed when it is a minute old; none for no row, and none for a
    /// damaged one, which is removed.
    func read(_ key: HTTPCache.Key) async throws -> [HTTPCache.Entry] {
        let schema = configuration.schema
        let query: PostgresQuery = """
            WITH used AS (
                UPDATE \(unescaped: schema).cache_entries SET used_at = \(unescaped: schema).cache_now()
                WHERE url_name = \(key.url) AND key_name = \(key.partition)
                AND used_at < \(unescaped: schema).cache_now() - 60000000
                RETURNING 1
            )
            SELECT variants FROM \(unescaped: schema).cache_entries
            WHERE url_name = \(key.url) AND key_name = \(key.partition)
            """
        var stored: Data?
        for try await variants in try await postgres.query(query, logger: logger).decode(Data.self) {
            stored = variants
        }
        guard let stored else { return [] }
        guard let entries = DiskCacheStorage.decode(stored), !entries.isEmpty else {
            logger.warning("http cache: a damaged row of the shared table was read as a miss and removed")
            try await delete(key)
            return []
        }
        return entries
    }

    /// Stores `entry` among the row's variants (replacing the one with its secondary key, keeping the newest that
    /// fit the entry bound), or removes the row when none is left; the bytes written.
    func write(_ entry: HTTPCache.Entry, _ key: HTTPCache.Key) async throws -> Int {
        let bound = configuration.entryBound
        var variants = try await read(key).filter { $0.secondaryKey != entry.secondaryKey }
        if entry.size <= bound { variants.insert(entry, at: 0) }
        var total = variants.reduce(0) { $0 + $1.size }
        while total > bound, let last = variants.popLast() { total -= last.size }
        guard !variants.isEmpty else {
            try await delete(key)
            return 0
        }
        let schema = configuration.schema
        let data = ByteBuffer(bytes: DiskCacheStorage.encode(variants))
        let query: PostgresQuery = """
            INSERT INTO \(unescaped: schema).cache_entries (url_name, key_name, variants, size, used_at)
            VALUES (\(key.url), \(key.partition), \(data), \(Int64(total)), \(unescaped: schema).cache_now())
            ON CONFLICT (url_name, key_name) DO UPDATE
            SET variants = excluded.variants, size = excluded.size, used_at = excluded.used_at
            """
        try await postgres.query(query, logger: logger)
        return total
    }

    /// Removes the row named `key`.
    func delete(_ key: HTTPCache.Key) async throws {
        let query: PostgresQuery = """
            DELETE FROM \(unescaped: configuration.schema).cache_entries
            WHERE url_name = \(key.url) AND key_name = \(key.partition)
            """
        try await postgres.query(query, logger: logger)
    }

    /// Removes every row of the URL named `name`, and tells the listening instances.
    func delete(urlNamed name: String) async throws {
        let schema = configuration.schema
        let query: PostgresQuery = """
            WITH gone AS (DELETE FROM \(unescaped: schema).cache_entries WHERE url_name = \(name) RETURNING 1)
            SELECT pg_notify(\(channel), \(name))
            """
        try await postgres.query(query, logger: logger)
    }

    /// Removes every row, and tells the listening instances.
    func deleteAll() async throws {
        let schema = configuration.schema
        let query: PostgresQuery = """
            WITH gone AS (DELETE FROM \(unescaped: schema).cache_entries RETURNING 1)
            SELECT pg_notify(\(channel), '*')
            """
        try await postgres.query(query, logger: logger)
    }

    /// Removes the least recently used rows until the rest fit ``PostgresCacheConfiguration/maximumSize``, unless
    /// another instance is trimming at the moment.
    func trim() async throws {
        let schema = configuration.schema
        let maximum = Int64(configuration.maximumSize)
        try await withCarefulTransaction(postgres, logger: logger) { [logger] connection in
            let lock: PostgresQuery = "SELECT pg_try_advisory_xact_lock(hashtext(\(schema + ".cache_trim")))"
            var locked = false
            for try await held in try await connection.query(lock, logger: logger).decode(Bool.self) { locked = held }
            guard locked else { return }
            let query: PostgresQuery = """
                DELETE FROM \(unescaped: schema).cache_entries e USING (
                    SELECT url_name, key_name FROM (
                        SELECT url_name, key_name,
                            sum(size) OVER (ORDER BY used_at DESC, url_name, key_name) AS running
                        FROM \(unescaped: schema).cache_entries
                    ) ranked WHERE running > \(maximum)
                ) old
                WHERE e.url_name = old.url_name AND e.key_name = old.key_name
                """
            try await connection.query(query, logger: logger)
        }
    }

    /// The channel invalidations are announced on: a URL's name, or `*` for everything.
    var channel: String { "\(configuration.schema)_cache" }
}
#endif
