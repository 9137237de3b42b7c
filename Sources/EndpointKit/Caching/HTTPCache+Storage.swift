import Foundation

extension HTTPCache {
    /// Where an ``HTTPCache`` keeps its responses: ``MemoryCacheStorage`` (the default), ``DiskCacheStorage``, a
    /// storage a fleet shares (the `Postgres` trait's `PostgresCacheStorage`), or your own.
    ///
    /// A storage keeps entries under keys and bounds itself; the cache decides what to store, what is fresh and
    /// what a 304 changes. Several variants (one per `Vary` selection) can share a key. Every method may be
    /// called from any task at once.
    ///
    /// The methods are `async` so that a storage may reach a database or another process; a storage in memory or
    /// on a local disk implements them as plain synchronous methods, which satisfy these requirements. A storage
    /// never fails a call: what it cannot read is a miss (no entries), and what it cannot write is not stored.
    public protocol Storage: Sendable {
        /// The variants stored under `key`, most recently stored first; reading counts as a use. What cannot be
        /// read (damaged, or out of reach) is a miss: no entries.
        func entries(for key: Key) async -> [Entry]
        /// Stores `entry` under `key`, replacing a variant with the same ``Entry/secondaryKey``.
        func store(_ entry: Entry, for key: Key) async
        /// Removes every variant under `key`.
        func removeEntries(for key: Key) async
        /// Removes every entry for `url`, whatever its partition and method: what a successful unsafe request
        /// to it does (RFC 9111 §4.4).
        func removeEntries(forURL url: String) async
        /// Removes everything.
        func removeAll() async
        /// Called on a miss (nothing stored under `key`) before the request is sent. A storage that several clients
        /// or instances share may make the callers that miss the same key at once wait for one of them, for at most
        /// `limit` (the time the call has left, when it has a deadline): it returns what that one stored, or no
        /// entries when this caller is to send (having claimed the fetch, which ``endFill(of:)`` ends), or when
        /// waiting for the other was not worth it. The default returns no entries at once: every caller sends.
        func waitForFill(of key: Key, upTo limit: Duration?) async -> [Entry]
        /// Ends the claim of a fetch that ``waitForFill(of:upTo:)`` gave this caller, once its response was stored, was
        /// not storable, or failed: the callers waiting on it go on. The default does nothing.
        func endFill(of key: Key) async
        /// A secret for the cache's keyed hashes that this storage keeps, or `nil` (the default) for a random
        /// one per cache. A storage that outlives the process, or that several processes share, keeps one, so
        /// that partitions and variants match across runs and instances; it must be as private as the stored
        /// responses. The cache reads it once, when it is made.
        var partitionSecret: Data? { get }
    }

    /// What a stored response is found by: the partition of the credentials it was fetched with, the method and
    /// the target URI (RFC 9111 §4.1's primary key, partitioned).
    public struct Key: Sendable, Hashable {
        /// A keyed hash of the request's credentials (its secret headers), as hexadecimal; empty without any.
        /// Never the credentials themselves.
        public var partition: String
        /// The request's method.
        public var method: HTTPMethod
        /// The request's URL, query included, as sent. A storage that writes keys anywhere should hash it: secret
        /// query values are part of it.
        public var url: String

        /// Creates a key.
        public init(partition: String, method: HTTPMethod, url: String) {
            self.partition = partition
            self.method = method
            self.url = url
        }
    }

    /// One stored response.
    public struct Entry: Sendable, Hashable {
        /// The status code.
        public var statusCode: Int
        /// The response headers as stored: those of the response, updated by each 304 since, without
        /// `Set-Cookie`.
        public var headers: HTTPHeaders
        /// The whole body.
        public var body: Data
        /// When the request that got this response was sent.
        public var requestDate: Date
        /// When its response arrived (or, after a 304, the 304).
        public var responseDate: Date
        /// A keyed hash of the request headers the response's `Vary` names, or `nil` when it has no `Vary`: a
        /// request matches this variant when its own headers hash the same.
        public var secondaryKey: String?

        /// Creates an entry.
        public init(
            statusCode: Int,
            headers: HTTPHeaders,
            body: Data,
            requestDate: Date,
            responseDate: Date,
            secondaryKey: String?
        ) {
            self.statusCode = statusCode
            self.headers = headers
            self.body = body
            self.requestDate = requestDate
            self.responseDate = responseDate
            self.secondaryKey = secondaryKey
        }

        /// Bytes the entry takes, as storages count them against their bound: the body, the headers and a fixed
        /// 256 for the rest.
        public var size: Int {
            headers.reduce(body.count + 256) { $0 + $1.name.rawValue.utf8.count + $1.value.utf8.count + 4 }
        }
    }
}
