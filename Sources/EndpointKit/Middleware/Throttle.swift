import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Limits how many requests a client has in flight, in all and optionally per host.
///
///     EndpointClient(environment: env, middleware: [Retry(), Throttle(maxConcurrent: 4)])
///
/// Callers beyond the limit wait in arrival order; a caller whose task is cancelled leaves the line at once
/// with ``EndpointError/Kind/cancelled``. Put it inside ``Retry`` so that backoff waits hold no slot; the
/// client's deadline for an attempt starts only once the attempt has its slot. An endpoint can skip it with
/// `options.isThrottled = false`. URLSession opens at most `httpMaximumConnectionsPerHost` connections to a
/// host (6 by default) and queues the rest where the deadline already runs: keep the per-host limit at or
/// below it, or raise it in the transport's configuration.
public struct Throttle: Middleware {
    /// The most requests in flight at once.
    public let maxConcurrent: Int
    /// The most requests in flight to one host at once, or `nil` for no per-host limit.
    public let maxConcurrentPerHost: Int?
    private let overall: AsyncSemaphore
    private let hosts: HostQueue?

    /// Creates the step; limits below 1 are raised to 1.
    public init(maxConcurrent: Int, maxConcurrentPerHost: Int? = nil) {
        self.maxConcurrent = max(1, maxConcurrent)
        self.maxConcurrentPerHost = maxConcurrentPerHost.map { max(1, $0) }
        overall = AsyncSemaphore(permits: self.maxConcurrent)
        hosts = self.maxConcurrentPerHost.map(HostQueue.init(limit:))
    }

    /// The most requests that were ever in flight at once through this step: a metric, e.g. to size the limit.
    public var peakConcurrency: Int { overall.peakInUse }

    /// The requests in flight through this step now: a metric for dashboards.
    public var inFlight: Int { overall.inUse }

    /// The callers waiting for a slot now: a metric for dashboards.
    public var waiting: Int { overall.waiting }

    /// Waits for a slot, then sends `request`.
    public func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext) async throws
        -> TransportResponse
    {
        guard context.options.isThrottled else { return try await next(request, context: context) }
        let host = request.url.host?.lowercased()
        if let hosts, let host { try await hosts.acquire(host) }
        defer { if let hosts, let host { hosts.release(host) } }
        try await overall.acquire()
        defer { overall.release() }
        return try await next(request, context: context)
    }
}
