import Foundation

/// The cache's part in one hop whose body is collected: look up before sending, and afterwards store, freshen
/// from a 304, or fall back to a stale response on an error (RFC 9111, RFC 5861).
struct CacheStep: Sendable {
    let cache: HTTPCache
    let key: HTTPCache.Key
    let rules: RequestCacheRules
    /// The stored variant that matches the request's `Vary` selection.
    let selected: HTTPCache.Entry?
    /// Every stored variant under the key.
    let variants: [HTTPCache.Entry]
    /// How the selected variant stands now.
    let assessment: CacheRules.Assessment?
    /// Whether this call claimed the fetch of a missed key, which ``endFill()`` ends.
    let claimedFill: Bool

    /// Headers that put conditions of the caller's own on a request: the cache leaves such a request alone.
    private static let conditions: [HTTPHeaders.Name] = [
        .ifNoneMatch, .ifModifiedSince, .ifMatch, .ifUnmodifiedSince, .ifRange, "range",
    ]

    /// The statuses `stale-if-error` covers (RFC 5861 §4).
    private static let errorStatuses: Set<Int> = [500, 502, 503, 504]

    /// What to do before sending.
    enum Decision: Sendable {
        /// Serve this stored response; send nothing.
        case serve(TransportResponse)
        /// Serve this stale response, and revalidate it in the background with the request.
        case serveWhileRevalidating(TransportResponse, TransportRequest)
        /// Send this request: the original, or made conditional on what is stored.
        case send(TransportRequest)
    }

    /// The step for `request`, or `nil` when the cache stays out of it: another method than GET or HEAD, a body
    /// the caller streams or writes, an endpoint that opted out, or a request with conditions of its own. On a miss,
    /// it waits for another caller's fetch at most until `deadline`, when the call has one.
    init?(
        cache: HTTPCache?,
        request: TransportRequest,
        options: RequestOptions,
        body: ResponseBodyHandling,
        redactor: Redactor,
        deadline: ContinuousClock.Instant? = nil
    ) async {
        guard let cache, options.isCached, request.method == .get || request.method == .head,
            case .collect = body
        else { return nil }
        guard !Self.conditions.contains(where: request.headers.contains) else { return nil }
        self.cache = cache
        key = cache.key(for: request, redactor: redactor)
        rules = RequestCacheRules(options.cacheDirectives, headers: request.headers)
        (selected, variants, claimedFill) = await cache.lookup(key, headers: request.headers, deadline: deadline)
        assessment = selected.map { CacheRules.Assessment($0, now: cache.now()) }
    }

    /// Ends the claim of the fetch this call made on a miss, if it made one: its response is stored, or will not be.
    func endFill() async {
        if claimedFill { await cache.storage.endFill(of: key) }
    }

    /// Serve, serve and revalidate, or send (conditionally when something stored has a validator).
    func decide(for request: TransportRequest) throws(EndpointError) -> Decision {
        if let selected, let assessment {
            if assessment.isServable(for: rules) { return .serve(response(from: selected, to: request, age: true)) }
            if assessment.isServableWhileRevalidating(for: rules) {
                return .serveWhileRevalidating(
                    response(from: selected, to: request, age: true),
                    conditional(request)
                )
            }
        }
        guard !rules.onlyIfCached else {
            throw EndpointError(
                .notCached,
                "the request allows only a stored response (only-if-cached), and none that it accepts is stored"
            )
        }
        return .send(conditional(request))
    }

    /// `request` with `If-None-Match` (every stored variant's `ETag`) and `If-Modified-Since` (the selected
    /// variant's `Last-Modified`), when there are any (§4.3.1).
    func conditional(_ request: TransportRequest) -> TransportRequest {
        var request = request
        var tags: [String] = []
        for tag in variants.compactMap({ $0.headers[.eTag] }) where !tags.contains(tag) { tags.append(tag) }
        if !tags.isEmpty { request.headers[.ifNoneMatch] = tags.joined(separator: ", ") }
        if let modified = selected?.headers[.lastModified] { request.headers[.ifModifiedSince] = modified }
        return request
    }

    /// What the caller gets once the response to the sent request is in (its body collected): the stored
    /// response freshened by a 304; a stale one in place of a 500, 502, 503 or 504 where `stale-if-error`
    /// allows; or the response itself, stored when allowed. `nil` for a 304 that names no stored variant: the
    /// caller sends the request again without conditions.
    func finish(_ response: TransportResponse, to request: TransportRequest, sentAt: Date) async -> TransportResponse? {
        if response.statusCode == 304 {
            guard
                let entry = await cache.freshen(
                    with: response,
                    key: key,
                    selected: selected,
                    variants: variants,
                    sentAt: sentAt
                )
            else { return nil }
            var served = self.response(from: entry, to: request, age: false)
            served.source = .revalidated
            served.headReceivedAt = response.headReceivedAt
            return served
        }
        if Self.errorStatuses.contains(response.statusCode), let stale = staleOnError(to: request) {
            return stale
        }
        await cache.storeIfAllowed(
            response,
            body: response.bufferedBody,
            for: request,
            key: key,
            rules: rules,
            sentAt: sentAt
        )
        return response
    }

    /// The stored response in place of a failure, where `stale-if-error` allows it.
    func staleOnError(to request: TransportRequest) -> TransportResponse? {
        guard let selected, let assessment, assessment.isServableOnError(for: rules) else { return nil }
        return response(from: selected, to: request, age: true)
    }

    /// A stored entry as a response to `request`, with an `Age` header when `age` is `true` (§5.1).
    private func response(from entry: HTTPCache.Entry, to request: TransportRequest, age: Bool) -> TransportResponse {
        var headers = entry.headers
        if age {
            let seconds = CacheRules.currentAge(of: entry, now: cache.now())
            headers[.age] = String(Int(min(seconds, 2_147_483_648)))
        }
        var response = TransportResponse(
            statusCode: entry.statusCode,
            headers: headers,
            url: request.url,
            data: entry.body
        )
        response.source = .cache
        return response
    }
}
