#if Postgres
import EndpointKit

/// Where ``PostgresCacheStorage`` keeps the fleet's responses, how many bytes, and how long a trip to PostgreSQL may
/// take before the cache does without it.
public struct PostgresCacheConfiguration: Sendable {
    /// The schema the cache's table lives in, made if missing: a lowercase SQL identifier of at most 48 characters.
    /// Instances that share a cache name the same one; it may be the outbox's and the rate limits'.
    public var schema: String
    /// The most bytes the shared table's entries may take together (``EndpointKit/HTTPCache/Entry/size``): 256 MiB
    /// unless given. Each instance trims the table, least recently used first, once it has written a sixteenth of
    /// this since its last trim, so the table may pass the bound by what the instances wrote since theirs.
    public var maximumSize: Int
    /// The most bytes one key's variants may take, in the table and in memory; a larger response is not stored.
    /// 4 MiB unless given, and never more than ``maximumSize``.
    public var maximumEntrySize: Int
    /// The bytes of the in-memory tier in front of the table: 16 MiB unless given; 0 for none.
    public var memorySize: Int
    /// How long a trip to PostgreSQL may take before the cache does without it: that read is a miss, that write is
    /// not shared. 500 ms unless given.
    public var timeout: Duration
    /// After a trip failed, how long the cache does without the table (the in-memory tier only) before one call
    /// tries it again: 5 s unless given.
    public var retryInterval: Duration
    /// How long a call that misses a key another instance is fetching waits for that fetch's response, at the most,
    /// before it sends its own; also how long a claim to fetch lasts when its holder does not end it. 2 s unless
    /// given; zero to wait for nobody.
    public var fillWait: Duration
    /// How long the listening connection waits before it listens again after it was lost.
    public var listenRetryInterval: Duration

    /// The defaults: schema `endpointkit`, 256 MiB shared, 4 MiB an entry, 16 MiB in memory, 500 ms for PostgreSQL
    /// to answer, tried again 5 s after a failure, up to 2 s waiting for another instance's fetch.
    public init(
        schema: String = "endpointkit",
        maximumSize: Int = 256 << 20,
        maximumEntrySize: Int = 4 << 20,
        memorySize: Int = 16 << 20,
        timeout: Duration = .milliseconds(500),
        retryInterval: Duration = .seconds(5),
        fillWait: Duration = .seconds(2),
        listenRetryInterval: Duration = .seconds(1)
    ) {
        self.schema = schema
        self.maximumSize = maximumSize
        self.maximumEntrySize = maximumEntrySize
        self.memorySize = memorySize
        self.timeout = timeout
        self.retryInterval = retryInterval
        self.fillWait = fillWait
        self.listenRetryInterval = listenRetryInterval
    }

    /// Why the configuration cannot be used, if it cannot.
    var problem: String? {
        if let problem = schemaNameProblem(schema, of: "cache") { return problem }
        if maximumSize < 0 || maximumEntrySize < 0 || memorySize < 0 { return "a size of the cache is negative" }
        if timeout <= .zero || retryInterval <= .zero || listenRetryInterval <= .zero {
            return "the cache's timeout or retry intervals are not positive"
        }
        if fillWait < .zero { return "the cache's wait for another instance's fetch is negative" }
        return nil
    }

    /// The bound of one key's variants: ``maximumEntrySize``, never more than ``maximumSize``.
    var entryBound: Int { min(maximumEntrySize, maximumSize) }
}
#endif
