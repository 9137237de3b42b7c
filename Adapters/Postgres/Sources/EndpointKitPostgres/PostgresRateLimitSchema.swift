#if Postgres
import EndpointKit

/// The table and functions ``PostgresRateLimits`` keeps its limits with, in a schema of the user's naming, created
/// and migrated by the library (``LibraryTables``; `ratelimit_version` holds the version).
///
/// - `ratelimit_keys`: one row per key, its GCRA state as `RateLimitState` holds it (the theoretical arrival time
///   and the end of the latest pause, in microseconds of the database's clock).
/// - `ratelimit_reserve(key, interval, tolerance, max_wait, at)`: `RateLimitState.apply(.reserve…)` as one
///   statement: it locks the key's row, reads the time (`at`, or the database's clock once the lock is held),
///   and answers the wait, whether it was granted, and how long the statement had run when it read the time. The
///   tests hold it to `RateLimitState`'s answers.
/// - `ratelimit_lease(key, interval, tolerance, max_wait, count, at)` (version 2): `RateLimitState.lease(…)` as one
///   statement, the same way: it answers where the block's spaced slots begin and its floor (both relative to the
///   time it read), how many slots it took, and how long it had run when it read the time; when even the first slot
///   lies beyond `max_wait`, it takes none and answers the first slot's wait as `floor`.
/// - `ratelimit_pause(key, duration, at)`: `RateLimitState.apply(.pause…)`, and a notification on
///   `<schema>_ratelimit` with what is left of the pause and the key, for the instances that listen.
enum PostgresRateLimitSchema {
    /// The version this EndpointKit writes and reads.
    static let currentVersion = 2

    /// The rate limits' tables.
    static let tables = LibraryTables(
        noun: "rate limit",
        prefix: "ratelimit",
        currentVersion: currentVersion,
        failure: .storageFailed,
        migration: migration(to:schema:)
    )

    /// The statements of each migration, by the version it leads to.
    @Sendable static func migration(to version: Int, schema: String) -> [String] {
        if version == 2 { return [leaseFunction(in: schema)] }
        guard version == 1 else { return [] }
        return tables.versionTable(in: schema) + [
            """
            CREATE TABLE \(schema).ratelimit_keys (
                key text PRIMARY KEY,
                arrival bigint NOT NULL DEFAULT 0,
                paused_until bigint NOT NULL DEFAULT 0
            )
            """,
            """
            CREATE FUNCTION \(schema).ratelimit_now() RETURNS bigint LANGUAGE sql VOLATILE
            AS $$ SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint $$
            """,
            reserveFunction(in: schema),
            pauseFunction(in: schema),
        ]
    }

    /// `ratelimit_reserve`: `RateLimitState.apply(.reserve…)` in one statement.
    private static func reserveFunction(in schema: String) -> String {
        """
        CREATE FUNCTION \(schema).ratelimit_reserve(
            p_key text, p_interval bigint, p_tolerance bigint, p_max_wait bigint, p_at bigint DEFAULT NULL
        ) RETURNS TABLE (wait bigint, granted boolean, ran bigint) LANGUAGE plpgsql AS $$
        DECLARE
            v_arrival bigint;
            v_paused bigint;
            v_now bigint;
            v_slot bigint;
            v_ran bigint;
        BEGIN
            SELECT k.arrival, k.paused_until INTO v_arrival, v_paused
                FROM \(schema).ratelimit_keys k WHERE k.key = p_key FOR UPDATE;
            IF NOT FOUND THEN
                INSERT INTO \(schema).ratelimit_keys (key) VALUES (p_key) ON CONFLICT DO NOTHING;
                SELECT k.arrival, k.paused_until INTO v_arrival, v_paused
                    FROM \(schema).ratelimit_keys k WHERE k.key = p_key FOR UPDATE;
            END IF;
            v_now := coalesce(p_at, \(schema).ratelimit_now());
            v_slot := greatest(v_now, v_arrival - p_tolerance, v_paused);
            -- How long the statement had run when it read the time (the row's lock waited for included).
            v_ran := CASE WHEN p_at IS NULL
                THEN v_now - (extract(epoch FROM statement_timestamp()) * 1000000)::bigint ELSE 0 END;
            IF v_slot - v_now > p_max_wait THEN
                RETURN QUERY SELECT v_slot - v_now, false, v_ran;
                RETURN;
            END IF;
            UPDATE \(schema).ratelimit_keys SET arrival = greatest(v_arrival, v_slot) + p_interval
                WHERE key = p_key;
            RETURN QUERY SELECT v_slot - v_now, true, v_ran;
        END
        $$
        """
    }

    /// `ratelimit_lease`: `RateLimitState.lease(…)` in one statement.
    private static func leaseFunction(in schema: String) -> String {
        """
        CREATE FUNCTION \(schema).ratelimit_lease(
            p_key text, p_interval bigint, p_tolerance bigint, p_max_wait bigint, p_count bigint,
            p_at bigint DEFAULT NULL
        ) RETURNS TABLE (base bigint, floor bigint, taken bigint, ran bigint) LANGUAGE plpgsql AS $$
        DECLARE
            v_arrival bigint;
            v_paused bigint;
            v_now bigint;
            v_floor bigint;
            v_start bigint;
            v_taken bigint;
            v_ran bigint;
        BEGIN
            SELECT k.arrival, k.paused_until INTO v_arrival, v_paused
                FROM \(schema).ratelimit_keys k WHERE k.key = p_key FOR UPDATE;
            IF NOT FOUND THEN
                INSERT INTO \(schema).ratelimit_keys (key) VALUES (p_key) ON CONFLICT DO NOTHING;
                SELECT k.arrival, k.paused_until INTO v_arrival, v_paused
                    FROM \(schema).ratelimit_keys k WHERE k.key = p_key FOR UPDATE;
            END IF;
            v_now := coalesce(p_at, \(schema).ratelimit_now());
            v_ran := CASE WHEN p_at IS NULL
                THEN v_now - (extract(epoch FROM statement_timestamp()) * 1000000)::bigint ELSE 0 END;
            v_floor := greatest(v_now, v_paused);
            IF greatest(v_floor, v_arrival - p_tolerance) - v_now > p_max_wait THEN
                RETURN QUERY SELECT 0::bigint, greatest(v_floor, v_arrival - p_tolerance) - v_now, 0::bigint, v_ran;
                RETURN;
            END IF;
            v_start := greatest(v_arrival, v_floor);
            v_taken := least(greatest(p_count, 1),
                greatest(1, 1 + (v_now + p_max_wait - (v_start - p_tolerance)) / greatest(p_interval, 1)));
            UPDATE \(schema).ratelimit_keys SET arrival = v_start + v_taken * p_interval WHERE key = p_key;
            RETURN QUERY SELECT v_start - p_tolerance - v_now, v_floor - v_now, v_taken, v_ran;
        END
        $$
        """
    }

    /// `ratelimit_pause`: `RateLimitState.apply(.pause…)`, and the notification.
    private static func pauseFunction(in schema: String) -> String {
        """
        CREATE FUNCTION \(schema).ratelimit_pause(p_key text, p_duration bigint, p_at bigint DEFAULT NULL)
        RETURNS bigint LANGUAGE plpgsql AS $$
        DECLARE
            v_now bigint := coalesce(p_at, \(schema).ratelimit_now());
            v_until bigint;
        BEGIN
            INSERT INTO \(schema).ratelimit_keys AS k (key, paused_until)
                VALUES (p_key, v_now + greatest(p_duration, 0))
                ON CONFLICT (key) DO UPDATE SET paused_until = greatest(k.paused_until, excluded.paused_until)
                RETURNING k.paused_until INTO v_until;
            PERFORM pg_notify('\(schema)_ratelimit', (v_until - v_now)::text || ' ' || p_key);
            RETURN v_until - v_now;
        END
        $$
        """
    }
}
#endif
