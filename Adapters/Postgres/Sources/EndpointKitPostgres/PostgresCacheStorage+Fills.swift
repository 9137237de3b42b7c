#if Postgres
import EndpointKit
import Foundation
import PostgresNIO

/// Misses coalesced across the fleet: of the calls that miss a key at once, in any instance, one claims the fetch
/// and the others wait for what it stores (polling the table), so that the upstream sends the response once. A call
/// waits at most ``PostgresCacheConfiguration/fillWait``, and stops waiting as soon as the claim ends with nothing
/// stored (a response that may not be stored, or a failure): then it sends on its own.
extension PostgresCacheStorage {
    /// How often a waiting call looks for the response it waits for.
    static let fillPollInterval = Duration.milliseconds(20)

    /// What another call stored while this one waited (at most ``PostgresCacheConfiguration/fillWait``, and at most
    /// `limit`), or no entries when this call is to send (it claimed the fetch, the table could not be used, or the
    /// wait ended).
    public func waitForFill(of key: HTTPCache.Key, upTo limit: Duration?) async -> [HTTPCache.Entry] {
        let wait = min(configuration.fillWait, limit ?? configuration.fillWait)
        guard wait > .zero else { return [] }
        let local = named(key)
        let holder = UUID().uuidString
        guard let claimed = await table("a fetch could not be claimed", { try await self.claim(local, holder) })
        else { return [] }
        if claimed {
            claims.withLock { $0[local] = holder }
            return []
        }
        let deadline = ContinuousClock.now.advanced(by: wait)
        while ContinuousClock.now < deadline {
            guard (try? await Task.sleep(for: Self.fillPollInterval)) != nil else { return [] }
            guard let (variants, filling) = await table("a fetch could not be awaited", { try await self.poll(local) })
            else { return [] }
            if !variants.isEmpty {
                for entry in variants.reversed() { memory.store(entry, for: local) }
                return variants
            }
            if !filling { return [] }
        }
        return []
    }

    /// Ends this instance's claim of the fetch of `key`, if it holds one.
    public func endFill(of key: HTTPCache.Key) async {
        let local = named(key)
        guard let holder = claims.withLock({ $0.removeValue(forKey: local) }) else { return }
        await table("a fetch's claim could not be ended") { try await self.release(local, holder) }
    }

    /// Claims the fetch of the row named `key` for `holder`, unless the row exists or another claim holds: whether it
    /// did.
    private func claim(_ key: HTTPCache.Key, _ holder: String) async throws -> Bool {
        let schema = configuration.schema
        let query: PostgresQuery = """
            INSERT INTO \(unescaped: schema).cache_fills AS f (url_name, key_name, holder, until)
            SELECT \(key.url), \(key.partition), \(holder),
                \(unescaped: schema).cache_now() + \(configuration.fillWait.wholeMicroseconds)
            WHERE NOT EXISTS (
                SELECT 1 FROM \(unescaped: schema).cache_entries WHERE url_name = \(key.url) AND key_name = \(key.partition)
            )
            ON CONFLICT (url_name, key_name) DO UPDATE SET holder = excluded.holder, until = excluded.until
            WHERE f.until < \(unescaped: schema).cache_now()
            RETURNING true
            """
        for try await _ in try await postgres.query(query, logger: logger).decode(Bool.self) { return true }
        return false
    }

    /// The row named `key`'s variants (none for no row or a damaged one), and whether a claim to fetch it holds.
    private func poll(_ key: HTTPCache.Key) async throws -> ([HTTPCache.Entry], Bool) {
        let schema = configuration.schema
        let query: PostgresQuery = """
            SELECT
                (SELECT variants FROM \(unescaped: schema).cache_entries
                    WHERE url_name = \(key.url) AND key_name = \(key.partition)),
                EXISTS (SELECT 1 FROM \(unescaped: schema).cache_fills
                    WHERE url_name = \(key.url) AND key_name = \(key.partition)
                    AND until >= \(unescaped: schema).cache_now())
            """
        for try await (variants, filling) in try await postgres.query(query, logger: logger).decode((Data?, Bool).self)
        {
            return (variants.flatMap(DiskCacheStorage.decode) ?? [], filling)
        }
        return ([], false)
    }

    /// Ends `holder`'s claim of the row named `key` (a claim that lapsed and was taken by another is left alone).
    private func release(_ key: HTTPCache.Key, _ holder: String) async throws {
        let query: PostgresQuery = """
            DELETE FROM \(unescaped: configuration.schema).cache_fills
            WHERE url_name = \(key.url) AND key_name = \(key.partition) AND holder = \(holder)
            """
        try await postgres.query(query, logger: logger)
    }
}
#endif
