import Foundation

/// A private HTTP cache (RFC 9111) that every ``EndpointClient`` has unless told otherwise: repeated GETs of a
/// fresh response cost no request, and stale ones cost a conditional request whose 304 carries no body.
///
///     let client = EndpointClient(environment: .production)                     // a 16 MiB cache in memory
///     let big = EndpointClient(environment: .production, cache: HTTPCache(storage: MemoryCacheStorage(maximumSize: 64 << 20)))
///     let none = EndpointClient(environment: .production, cache: nil)           // no cache
///
/// It is safe on by default because it is private to its client and **partitioned by credential**: a response
/// fetched with one token, API key or cookie is never served to a call with another or with none. The
/// partition is a keyed hash (HMAC-SHA-256 under a secret of this cache, or of its disk storage) of the
/// request's secret headers, never the headers themselves, and nothing the cache stores or reports shows it.
///
/// See <doc:HTTPCaching> for what is stored, for how long, and what never is.
public final class HTTPCache: Sendable {
    /// Where responses are kept.
    public let storage: any Storage
    /// The keyed hash, under the storage's secret or a random one of this cache's.
    private let authenticator: SHA256.Authenticator
    /// Wall-clock time, which `Date`, `Expires` and `Age` are read against.
    let now: @Sendable () -> Date
    /// Keys being revalidated in the background, so that one stale response starts one revalidation.
    private let backgroundRevalidations = Locked(Set<Key>())

    /// Creates a cache in `storage`, a ``MemoryCacheStorage`` of 16 MiB unless given.
    ///
    /// - Parameters:
    ///   - storage: Where responses are kept.
    ///   - date: The wall clock freshness is judged on; tests pass one they move by hand.
    public init(
        storage: any Storage = MemoryCacheStorage(),
        date: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.storage = storage
        if let secret = storage.partitionSecret, !secret.isEmpty {
            authenticator = SHA256.Authenticator(key: secret)
        } else {
            authenticator = SHA256.Authenticator(key: SHA256.Authenticator.randomKey())
        }
        now = date
    }

    /// Removes every stored response.
    public func removeAll() async { await storage.removeAll() }

    /// The key `request` is stored under: its method and URL in the partition of its secret headers.
    func key(for request: TransportRequest, redactor: Redactor) -> Key {
        // `name:value` lines of the secret headers, names lowercased, in name order: the same credentials give
        // the same partition whatever order a middleware added them in. Built as bytes, hashed once.
        var lines: [[UInt8]] = []
        for field in request.headers where redactor.isSensitive(field.name) {
            var line = field.name.rawValue.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
            line.append(UInt8(ascii: ":"))
            line.append(contentsOf: field.value.utf8)
            lines.append(line)
        }
        var partition = ""
        if !lines.isEmpty {
            if lines.count > 1 { lines.sort { $0.lexicographicallyPrecedes($1) } }
            let material = lines.joined(separator: [UInt8(ascii: "\n")]).map { $0 }
            partition = material.withUnsafeBytes { authenticator.code(for: $0) }.prefix(16).hexadecimal
        }
        return Key(partition: partition, method: request.method, url: request.url.absoluteString)
    }

    /// The keyed hash of the request headers `names` select (RFC 9111 §4.1), or `nil` for no names.
    func secondaryKey(selecting names: [String], from headers: HTTPHeaders) -> String? {
        guard !names.isEmpty else { return nil }
        let selected = names.map { name in
            let values = headers.values(for: HTTPHeaders.Name(name)).map { $0.trimmingSpaces }
            return "\(name):\(values.joined(separator: ", "))"
        }
        return hash(selected.joined(separator: "\n"))
    }

    /// The stored variants under `key`, and the one whose `Vary` selection matches `headers`; whether this caller
    /// claimed the fetch of a missed key (``Storage/waitForFill(of:upTo:)``, waiting at most until `deadline`: the time
    /// left is read on a miss only).
    func lookup(_ key: Key, headers: HTTPHeaders, deadline: ContinuousClock.Instant? = nil) async
        -> (selected: Entry?, variants: [Entry], claimed: Bool)
    {
        var variants = await storage.entries(for: key)
        var claimed = false
        if variants.isEmpty {
            variants = await storage.waitForFill(of: key, upTo: deadline.map { ContinuousClock.now.duration(to: $0) })
            claimed = variants.isEmpty
        }
        return (select(from: variants, headers: headers), variants, claimed)
    }

    /// The variant whose `Vary` selection matches `headers`.
    private func select(from variants: [Entry], headers: HTTPHeaders) -> Entry? {
        variants.first { entry in
            let names = CacheRules.varyNames(entry.headers)
            guard !names.contains("*") else { return false }
            return secondaryKey(selecting: names, from: headers) == entry.secondaryKey
        }
    }

    /// Stores a complete response to `request` when RFC 9111 allows it; `Set-Cookie` is never kept.
    func storeIfAllowed(
        _ response: TransportResponse,
        body: Data,
        for request: TransportRequest,
        key: Key,
        rules: RequestCacheRules,
        sentAt requestDate: Date
    ) async {
        let control = CacheControl(response.headers)
        guard
            CacheRules.isStorable(
                method: request.method,
                statusCode: response.statusCode,
                headers: response.headers,
                control: control,
                request: rules
            )
        else { return }
        var headers = response.headers
        headers.remove(.setCookie)
        CacheRules.removeConnectionFields(from: &headers)
        let entry = Entry(
            statusCode: response.statusCode,
            headers: headers,
            body: body,
            requestDate: requestDate,
            responseDate: now(),
            secondaryKey: secondaryKey(selecting: CacheRules.varyNames(headers), from: request.headers)
        )
        await storage.store(entry, for: key)
    }

    /// Freshens the stored variant a 304 names (§4.3.4: by strong `ETag`, else `Last-Modified`, else the one
    /// that was selected) with the 304's headers and times, stores it, and returns it; `nil` when none matches.
    func freshen(
        with notModified: TransportResponse,
        key: Key,
        selected: Entry?,
        variants: [Entry],
        sentAt requestDate: Date
    ) async -> Entry? {
        var target: Entry?
        if let tag = notModified.headers[.eTag] {
            target = variants.first { $0.headers[.eTag].map { Self.weaklyEqual($0, tag) } ?? false }
        } else if let modified = notModified.headers[.lastModified] {
            target = variants.first { $0.headers[.lastModified] == modified }
        } else {
            target = selected
        }
        guard var entry = target else { return nil }
        var merged = notModified.headers
        CacheRules.removeConnectionFields(from: &merged)
        for name in Set(merged.map(\.name)) where !CacheRules.keptOn304.contains(name) {
            entry.headers.remove(name)
            for value in merged.values(for: name) { entry.headers.add(value, for: name) }
        }
        entry.requestDate = requestDate
        entry.responseDate = now()
        await storage.store(entry, for: key)
        return entry
    }

    /// After a successful unsafe request (2xx or 3xx to other than GET, HEAD, OPTIONS or TRACE), removes what is
    /// stored for its URL and for a same-origin `Location` or `Content-Location` (§4.4), in every partition.
    func invalidate(after request: TransportRequest, statusCode: Int, headers: HTTPHeaders) async {
        guard !Self.safeMethods.contains(request.method), (200..<400).contains(statusCode)
        else {
            return
        }
        await storage.removeEntries(forURL: request.url.absoluteString)
        let origin = Origin(request.url)
        for name in [HTTPHeaders.Name.location, .contentLocation] {
            guard let value = headers[name], let target = URL(string: value, relativeTo: request.url)?.absoluteURL,
                Origin(target) == origin
            else { continue }
            await storage.removeEntries(forURL: target.absoluteString)
        }
    }

    /// Claims the background revalidation of `key`; `false` when one is already running.
    func beginBackgroundRevalidation(of key: Key) -> Bool {
        backgroundRevalidations.withLock { $0.insert(key).inserted }
    }

    /// Ends the background revalidation of `key`.
    func endBackgroundRevalidation(of key: Key) {
        _ = backgroundRevalidations.withLock { $0.remove(key) }
    }

    /// HMAC-SHA-256 of `text` under the cache's secret, as hexadecimal (the first 128 bits).
    private func hash(_ text: String) -> String {
        authenticator.code(for: text).prefix(16).hexadecimal
    }

    /// Methods that change nothing on the server (RFC 9110 §9.2.1), whose responses invalidate nothing.
    private static let safeMethods: [HTTPMethod] = [.get, .head, .options, HTTPMethod("TRACE")]

    /// RFC 9110 §8.8.3.2's weak comparison: the opaque tags equal, `W/` ignored.
    static func weaklyEqual(_ first: String, _ second: String) -> Bool {
        func opaque(_ tag: String) -> Substring {
            let trimmed = tag.trimmingSpaces
            return trimmed.hasPrefix("W/") ? trimmed.dropFirst(2) : Substring(trimmed)
        }
        return opaque(first) == opaque(second)
    }
}

extension HTTPCache.Storage {
    /// `nil`: a cache in this storage hashes under a random secret of its own.
    public var partitionSecret: Data? { nil }

    /// No entries, at once: every caller that misses sends its request.
    public func waitForFill(of key: HTTPCache.Key, upTo limit: Duration?) async -> [HTTPCache.Entry] { [] }

    /// Nothing: a storage that coordinates no fetches has no claim to end.
    public func endFill(of key: HTTPCache.Key) async {}
}
