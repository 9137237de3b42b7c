import Foundation

/// What middleware know about a call besides its request.
public struct RequestContext: Sendable {
    /// The endpoint's options.
    public var options: RequestOptions
    /// The number of the attempt this step is part of, from 1, when the step was entered; ``Retry`` raises it
    /// for the attempts it starts. The true count of sends is ``EndpointError/attempts``.
    public var attempt: Int
    /// Whether the endpoint's kind needs credentials from a middleware such as ``BearerAuthentication``.
    public var requiresAuthentication: Bool
    /// The deadline for one attempt in seconds, all of its redirect hops and its body included, from the
    /// endpoint or the client; `.infinity` for none.
    public var timeout: TimeInterval
    /// The client's clock: deadlines, retry backoff, validator delays and observer timings all run on it.
    public var clock: any Clock<Duration>

    /// The call this context belongs to, when a client runs it.
    let call: CallState?

    /// Creates a context, for tests of a middleware; a client makes its own.
    public init(
        options: RequestOptions = RequestOptions(),
        attempt: Int = 1,
        requiresAuthentication: Bool = false,
        timeout: TimeInterval = 60,
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.init(
            options: options,
            attempt: attempt,
            requiresAuthentication: requiresAuthentication,
            timeout: timeout,
            clock: clock,
            call: nil
        )
    }

    init(
        options: RequestOptions,
        attempt: Int,
        requiresAuthentication: Bool,
        timeout: TimeInterval,
        clock: any Clock<Duration>,
        call: CallState?
    ) {
        self.options = options
        self.attempt = attempt
        self.requiresAuthentication = requiresAuthentication
        self.timeout = timeout
        self.clock = clock
        self.call = call
    }
}
