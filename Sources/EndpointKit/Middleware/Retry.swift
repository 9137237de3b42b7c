import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends a request again after a transport failure or a retryable status, by a ``RetryPolicy``.
///
///     EndpointClient(environment: env, middleware: [Retry(RetryPolicy(maxAttempts: 4))])
///
/// Waits run on the client's clock (``EndpointClient/clock``) unless you give this step its own, and end at once
/// when the calling task is cancelled. An endpoint can change the policy with `options.retryPolicy`. When it
/// gives up, the final response or error is returned, and the client's error says how many attempts were made
/// in all (``EndpointError/attempts``), whoever started them.
///
/// A server may ask for a wait: `Retry-After` on a retryable status, or a rate limit's reset time when
/// ``RetryPolicy/rateLimitReset`` is set. Up to ``RetryPolicy/maxRetryAfter`` it is honoured in place of the
/// computed delay; a longer one fails the call with ``EndpointError/Kind/rateLimited`` rather than sleeping.
///
/// A failure is retried when it is a timeout or a transient transport failure (``EndpointError/isTransient``:
/// the connection was refused, reset, or closed before the body was complete), and only for idempotent
/// methods or requests with an `Idempotency-Key` header (``IdempotencyKey``) unless the policy says otherwise.
public struct Retry: Middleware {
    /// The policy for endpoints that set none.
    public var policy: RetryPolicy
    private let clock: (any Clock<Duration>)?

    /// Creates the step.
    ///
    /// - Parameters:
    ///   - policy: When and how often to retry.
    ///   - clock: The clock backoff waits run on, or `nil` for the client's.
    public init(_ policy: RetryPolicy = RetryPolicy(), clock: (any Clock<Duration>)? = nil) {
        self.policy = policy
        self.clock = clock
    }

    /// Sends `request`, and again while the policy allows.
    public func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext) async throws
        -> TransportResponse
    {
        let policy = context.options.retryPolicy ?? self.policy
        let clock = self.clock ?? context.clock
        guard policy.maxAttempts > 1, policy.allowsRetry(of: request), request.canBeSentAgain else {
            return try await next(request, context: context)
        }
        // This step's own tries; the call's attempt number (context.attempt) also counts other steps' sends.
        var tries = 1
        // Whether an earlier try may have reached the server: the last try's error says so too (a write whose
        // first try was lost and whose second was refused may still have been applied).
        var earlierMayHaveBeenSent = false
        while true {
            let isLast = tries >= policy.maxAttempts
            let wait: Duration
            do {
                let response = try await next(request, context: context)
                guard !isLast else { return response }
                if let reset = policy.rateLimitReset?.wait(for: response) {
                    wait = try serverWait(reset, asked: "its rate limit resets", response: response, policy: policy)
                } else if policy.retryableStatuses.contains(response.statusCode) {
                    if let asked = RetryPolicy.retryAfter(response.headers[.retryAfter]) {
                        wait = try serverWait(asked, asked: "Retry-After", response: response, policy: policy)
                    } else {
                        let nominal = policy.nominalDelay(afterAttempt: tries)
                        wait = jittered(nominal, by: policy.jitter)
                    }
                } else {
                    return response
                }
                earlierMayHaveBeenSent = true
            } catch {
                guard !isLast, RetryPolicy.isRetryable(error), !Task.isCancelled else {
                    guard earlierMayHaveBeenSent, var endpointError = error as? EndpointError else { throw error }
                    endpointError.mayHaveBeenSent = true
                    throw endpointError
                }
                earlierMayHaveBeenSent = earlierMayHaveBeenSent || ((error as? EndpointError)?.mayHaveBeenSent ?? true)
                wait = jittered(
                    policy.nominalDelay(afterAttempt: tries),
                    by: policy.jitter
                )
            }
            try await clock.sleep(for: wait)
            tries += 1
        }
    }

    /// A wait the server asked for, or ``EndpointError/Kind/rateLimited`` when it is longer than the policy allows.
    private func serverWait(_ wait: Duration, asked reason: String, response: TransportResponse, policy: RetryPolicy)
        throws(EndpointError) -> Duration
    {
        guard wait > policy.maxRetryAfter else { return wait }
        var error = EndpointError(
            .rateLimited,
            "the server asks to wait \(wait.readable) (\(reason)), longer than the "
                + "\(policy.maxRetryAfter.readable) the retry policy allows (maxRetryAfter)",
            statusCode: response.statusCode,
            responseHeaders: response.headers,
            body: response.body.bufferedData
        )
        error.retryAfter = wait
        throw error
    }

    private func jittered(_ delay: Duration, by jitter: Double) -> Duration {
        guard jitter > 0 else { return delay }
        return delay * (1 - Double.random(in: 0...jitter))
    }
}
