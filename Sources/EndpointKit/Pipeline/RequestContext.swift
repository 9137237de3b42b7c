import Foundation

/// What middleware know about a call besides its request.
public struct RequestContext: Sendable {
    /// The endpoint's options.
    public var options: RequestOptions
    /// Whether the endpoint's kind needs credentials from a middleware such as ``BearerAuthentication``.
    public var requiresAuthentication: Bool
    /// The deadline for one attempt, all of its redirect hops and (when the body is read whole) its body, from
    /// the endpoint or the client; `nil` for none.
    public var timeout: Duration?
    /// The client's clock: deadlines, retry backoff, `Retry-After` waits, validator delays, stub delays and
    /// every timing run on it.
    public var clock: any Clock<Duration>

    /// The call this context belongs to, when a client runs it: it keeps the call's one attempt counter.
    let call: CallState?
    /// The endpoint's route as an absolute path with each interpolated value named in braces, e.g.
    /// `/v1/items/{id}` for `Endpoint(path: "items/\(id)")` under a base URL ending in `/v1` (see
    /// ``EndpointPath/template``): OpenTelemetry's `url.template`, a low-cardinality name for a span or a metric.
    /// `nil` when the route is unknown: an endpoint with an absolute ``Endpoint/url`` (a next page, say), or a
    /// path made from segments. Built when read; a call nobody asks it of never builds it.
    public var urlTemplate: String? { call?.route?.template }
    private let fixedAttempt: Int

    /// How many attempts the call has started so far (0 before the first one is sent), counted once for the
    /// whole call: retries, validator "send again" verdicts and replays after a token refresh each add one. It is
    /// the number ``EndpointError/attempts`` and ``Response/attempts`` report.
    public var attempt: Int { call?.attemptCount ?? fixedAttempt }

    /// `request`'s method and URL, redacted by the client's lists (``RequestDefaults/sensitiveQueryNames`` with the
    /// built-in ones): what a middleware may log or report.
    public func summary(of request: TransportRequest) -> RequestSummary {
        call?.redactor.summary(of: request) ?? RequestSummary(request)
    }

    /// Creates a context, for tests of a middleware; a client makes its own.
    public init(
        options: RequestOptions = RequestOptions(),
        attempt: Int = 1,
        requiresAuthentication: Bool = false,
        timeout: Duration? = .seconds(60),
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.options = options
        self.requiresAuthentication = requiresAuthentication
        self.timeout = timeout
        self.clock = clock
        self.call = nil
        self.fixedAttempt = attempt
    }

    init(
        options: RequestOptions,
        requiresAuthentication: Bool,
        timeout: Duration?,
        clock: any Clock<Duration>,
        call: CallState
    ) {
        self.options = options
        self.requiresAuthentication = requiresAuthentication
        self.timeout = timeout
        self.clock = clock
        self.call = call
        self.fixedAttempt = 0
    }
}
