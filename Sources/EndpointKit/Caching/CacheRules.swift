import Foundation

/// RFC 9111's rules for a private cache, as pure functions of headers and times: what may be stored, how long it
/// stays fresh, how old it is, and when it may be served without asking the server.
enum CacheRules {
    /// Statuses a cache may give heuristic freshness (RFC 9110 §15.1).
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]
    /// The longest heuristic freshness: a day.
    static let heuristicLimit: Double = 86_400
    /// Headers a 304 never changes in a stored response (RFC 9111 §3.2, RFC 9110 §15.4.5).
    static let keptOn304: Set<HTTPHeaders.Name> = [
        .contentLength, .contentEncoding, .transferEncoding, "content-range", "set-cookie",
    ]

    /// Whether a response may be stored (§3): to a GET or HEAD, a complete final status other than 206 and
    /// 304, no `no-store` either way, no `Vary: *`, and either explicit freshness or a heuristically cacheable
    /// status; and, since a stored response that can be neither served nor revalidated is dead weight, either
    /// some freshness or a validator.
    static func isStorable(
        method: HTTPMethod,
        statusCode: Int,
        headers: HTTPHeaders,
        control: CacheControl,
        request: RequestCacheRules
    ) -> Bool {
        guard method == .get || method == .head, statusCode >= 200, statusCode != 206, statusCode != 304,
            !request.noStore, !control.has("no-store"), !varyNames(headers).contains("*")
        else { return false }
        let explicit =
            control.has("max-age") || headers.contains(.expires) || control.has("public") || control.has("private")
        guard explicit || heuristicallyCacheable.contains(statusCode) else { return false }
        let hasValidator = headers.contains(.eTag) || headers.contains(.lastModified)
        return hasValidator
            || freshnessLifetime(statusCode: statusCode, headers: headers, control: control, at: nil) > 0
    }

    /// The request header names `Vary` lists, lowercased, sorted and without repeats; `*` when it says `*`.
    static func varyNames(_ headers: HTTPHeaders) -> [String] {
        let names = headers.values(for: .vary).flatMap { $0.split(separator: ",") }
            .map { $0.trimmingSpaces.lowercased() }.filter { !$0.isEmpty }
        return Array(Set(names)).sorted()
    }

    /// The freshness lifetime in seconds (§4.2.1): `max-age`, else `Expires` − `Date` (an unreadable `Expires`
    /// is already expired), else for a heuristically cacheable status or a `public` one with `Last-Modified`,
    /// 10 % of `Date` − `Last-Modified` capped at a day (§4.2.2), else 0. `responseDate` stands in for a
    /// missing `Date`, and for one later than it in the heuristic.
    static func freshnessLifetime(statusCode: Int, headers: HTTPHeaders, control: CacheControl, at responseDate: Date?)
        -> Double
    {
        if let maxAge = control.seconds("max-age") { return maxAge }
        let date = headers[.date].flatMap(HTTPDate.parse) ?? responseDate
        if let expires = headers[.expires] {
            guard let expiry = HTTPDate.parse(expires) else { return 0 }
            return max(0, expiry.timeIntervalSince(date ?? Date()))
        }
        guard heuristicallyCacheable.contains(statusCode) || control.has("public"),
            let lastModified = headers[.lastModified].flatMap(HTTPDate.parse)
        else { return 0 }
        var reference = date ?? Date()
        if let responseDate, reference > responseDate { reference = responseDate }
        return min(max(0, reference.timeIntervalSince(lastModified)) / 10, heuristicLimit)
    }

    /// The current age in seconds (§4.2.3): the corrected initial age (the larger of the apparent age, never
    /// negative for a `Date` in the future, and `Age` plus the response delay) plus the time stored.
    static func currentAge(of entry: HTTPCache.Entry, now: Date) -> Double {
        let date = entry.headers[.date].flatMap(HTTPDate.parse) ?? entry.responseDate
        let apparentAge = max(0, entry.responseDate.timeIntervalSince(date))
        let ageValue = ageSeconds(entry.headers) ?? 0
        let responseDelay = max(0, entry.responseDate.timeIntervalSince(entry.requestDate))
        let correctedInitialAge = max(apparentAge, ageValue + responseDelay)
        return correctedInitialAge + max(0, now.timeIntervalSince(entry.responseDate))
    }

    /// The `Age` value in seconds (§5.1): of a list (`7200, 0`, on one line or several), the first member; `nil`
    /// when that is not a non-negative integer, which a cache ignores. Capped at 2^31.
    static func ageSeconds(_ headers: HTTPHeaders) -> Double? {
        guard let line = headers.values(for: .age).first else { return nil }
        let first = line.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false)[0].trimmingSpaces
        guard !first.isEmpty, first.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return min(Double(first) ?? .infinity, 2_147_483_648)
    }

    /// Fields HTTP defines for one connection alone (RFC 9110 §7.6.1), besides those `Connection` names.
    static let connectionOnly: Set<HTTPHeaders.Name> = [
        "connection", "keep-alive", "proxy-connection", "te", "upgrade",
    ]

    /// Removes what a cache does not store (§3.1): `Connection`, the fields it names, and those HTTP defines for one
    /// connection alone. On every stored response: one pass when none is present, no set built.
    static func removeConnectionFields(from headers: inout HTTPHeaders) {
        guard headers.contains(where: { connectionOnly.contains($0.name) }) else { return }
        var named: [HTTPHeaders.Name] = []
        for field in headers where field.name == "connection" {
            for part in field.value.split(separator: ",") { named.append(HTTPHeaders.Name(part.trimmingSpaces)) }
        }
        headers.removeAll { connectionOnly.contains($0) || named.contains($0) }
    }

    /// A stored response judged at one moment.
    struct Assessment: Sendable {
        let control: CacheControl
        /// Freshness lifetime, in seconds.
        let lifetime: Double
        /// Current age, in seconds.
        let age: Double

        init(_ entry: HTTPCache.Entry, now: Date) {
            control = CacheControl(entry.headers)
            lifetime = CacheRules.freshnessLifetime(
                statusCode: entry.statusCode,
                headers: entry.headers,
                control: control,
                at: entry.responseDate
            )
            age = CacheRules.currentAge(of: entry, now: now)
        }

        var isFresh: Bool { age < lifetime }
        /// Seconds past its freshness; 0 while fresh.
        var staleness: Double { max(0, age - lifetime) }
        /// `must-revalidate` (or `no-cache`): never served stale (§5.2.2.2).
        private var neverStale: Bool { control.has("must-revalidate") || control.has("no-cache") }

        /// Whether it may be served without asking the server (§4.2, §5.2.1): not `no-cache` either way; within
        /// the request's `max-age` and `min-fresh`; fresh, or stale within the request's `max-stale` unless it
        /// says `must-revalidate`. A fresh `immutable` response (RFC 8246) is served even to a reload's
        /// `max-age=0`.
        func isServable(for request: RequestCacheRules) -> Bool {
            if request.noCache || control.has("no-cache") { return false }
            if isFresh && control.has("immutable") { return true }
            if let maxAge = request.maxAge, age > maxAge { return false }
            if let minFresh = request.minFresh, lifetime - age < minFresh { return false }
            if isFresh { return true }
            guard !neverStale, let maxStale = request.maxStale else { return false }
            return staleness <= maxStale
        }

        /// Whether it may be served stale while one revalidation runs in the background (RFC 5861 §3).
        func isServableWhileRevalidating(for request: RequestCacheRules) -> Bool {
            guard !isFresh, !neverStale, !request.noCache, let window = control.seconds("stale-while-revalidate")
            else { return false }
            return staleness <= window
        }

        /// Whether it may be served when revalidation fails (RFC 5861 §4): within the larger `stale-if-error`
        /// of the response and the request, never for `must-revalidate`.
        func isServableOnError(for request: RequestCacheRules) -> Bool {
            guard !neverStale else { return false }
            let window = max(control.seconds("stale-if-error") ?? -1, request.staleIfError ?? -1)
            return window >= 0 && staleness <= window
        }
    }
}

/// The request's own cache directives, from ``CacheDirectives`` and its `Cache-Control` header together, in
/// seconds.
struct RequestCacheRules: Sendable {
    var noCache = false
    var noStore = false
    var onlyIfCached = false
    var maxAge: Double?
    var maxStale: Double?
    var minFresh: Double?
    var staleIfError: Double?

    init(_ directives: CacheDirectives = CacheDirectives(), headers: HTTPHeaders = HTTPHeaders()) {
        let control = CacheControl(headers)
        // `Pragma: no-cache` counts only without `Cache-Control` (RFC 9111 §5.4, obsolete but still sent).
        let pragma = !headers.contains(.cacheControl) && headers[.pragma]?.lowercased().contains("no-cache") == true
        noCache = directives.noCache || control.has("no-cache") || pragma
        noStore = directives.noStore || control.has("no-store")
        onlyIfCached = directives.onlyIfCached || control.has("only-if-cached")
        maxAge = Self.smaller(directives.maxAge?.inSeconds, control.seconds("max-age"))
        maxStale = Self.larger(directives.maxStale?.inSeconds, control.maxStale)
        minFresh = Self.larger(directives.minFresh?.inSeconds, control.seconds("min-fresh"))
        staleIfError = Self.larger(directives.staleIfError?.inSeconds, control.seconds("stale-if-error"))
    }

    private static func smaller(_ first: Double?, _ second: Double?) -> Double? {
        guard let first else { return second }
        return min(first, second ?? first)
    }

    private static func larger(_ first: Double?, _ second: Double?) -> Double? {
        guard let first else { return second }
        return max(first, second ?? first)
    }
}
