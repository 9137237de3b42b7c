#if Postgres
import EndpointKit

/// The tables ``PostgresCacheStorage`` keeps the fleet's responses in, in a schema of the user's naming, created and
/// migrated by the library (``LibraryTables``; `cache_version` holds the version).
///
/// - `cache_entries`: one row per key: the keyed hashes of its URL and of its partition and method (never the URL
///   or the credentials), its variants in ``EndpointKit/DiskCacheStorage``'s file format (a mark, lengths, an end
///   mark: a damaged row never reads as an answer), their size, and when it was last used (microseconds of the
///   database's clock, renewed at most once a minute by a read).
/// - `cache_fills`: the fetches under way of keys nothing is stored under, one row per key while an instance holds
///   its claim (until a deadline, so that a claim whose holder died lapses): other instances that miss the key wait
///   for what the holder stores instead of fetching it too.
/// - `cache_secret`: one row, the secret of the keyed hashes (the cache's partitions and `Vary` selections), made
///   by the first instance and read by every other, so that the fleet's hashes match. It is as private as the
///   responses.
enum PostgresCacheSchema {
    /// The version this EndpointKit writes and reads.
    static let currentVersion = 1

    /// The cache's tables.
    static let tables = LibraryTables(
        noun: "cache",
        prefix: "cache",
        currentVersion: currentVersion,
        failure: .storageFailed,
        migration: migration(to:schema:)
    )

    /// The statements of each migration, by the version it leads to.
    @Sendable static func migration(to version: Int, schema: String) -> [String] {
        guard version == 1 else { return [] }
        return tables.versionTable(in: schema) + [
            """
            CREATE TABLE \(schema).cache_entries (
                url_name text NOT NULL,
                key_name text NOT NULL,
                variants bytea NOT NULL,
                size bigint NOT NULL,
                used_at bigint NOT NULL,
                PRIMARY KEY (url_name, key_name)
            )
            """,
            "CREATE INDEX cache_entries_used_at ON \(schema).cache_entries (used_at)",
            """
            CREATE TABLE \(schema).cache_fills (
                url_name text NOT NULL,
                key_name text NOT NULL,
                holder text NOT NULL,
                until bigint NOT NULL,
                PRIMARY KEY (url_name, key_name)
            )
            """,
            """
            CREATE TABLE \(schema).cache_secret (
                only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
                secret bytea NOT NULL CHECK (length(secret) >= 32)
            )
            """,
            """
            CREATE FUNCTION \(schema).cache_now() RETURNS bigint LANGUAGE sql VOLATILE
            AS $$ SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint $$
            """,
        ]
    }
}
#endif
