import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends a request again after a transport failure or a retryable status, by a ``RetryPolicy``.
///
///     EndpointClient(environment: env, middleware: [Retry(RetryPolicy(maxAttempts: 4))])
///
/// Waits run on the injected clock and end at once when the calling task is cancelled. An endpoint can change
/// the policy with `options.retryPolicy`. When it gives up, the final response or error is returned, and the
/// client's error says how many attempts were made.
public struct Retry: Middleware {
    /// The policy for endpoints that set none.
    public var policy: RetryPolicy
    private let clock: any Clock<Duration>

    /// Creates the step.
    ///
    /// - Parameters:
    ///   - policy: When and how often to retry.
    ///   - clock: The clock backoff waits run on; tests pass one that does not sleep.
    public init(_ policy: RetryPolicy = RetryPolicy(), clock: any Clock<Duration> = ContinuousClock()) {
        self.policy = policy
        self.clock = clock
    }

    /// Sends `request`, and again while the policy allows.
    public func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext) async throws
        -> HTTPResponse
    {
        let policy = context.options.retryPolicy ?? self.policy
        let method = request.urlRequest.httpMethod ?? "GET"
        guard policy.maxAttempts > 1, policy.allowsRetry(of: method), request.canBeSentAgain else {
            return try await next(request, context: context)
        }
        var context = context
        let firstAttempt = context.attempt
        while true {
            let isLast = context.attempt - firstAttempt + 1 >= policy.maxAttempts
            let wait: Duration
            do {
                let response = try await next(request, context: context)
                guard !isLast, policy.retryableStatuses.contains(response.statusCode) else { return response }
                let nominal = policy.nominalDelay(afterAttempt: context.attempt - firstAttempt + 1)
                if let asked = RetryPolicy.retryAfter(response.headers[.retryAfter]) {
                    guard asked <= policy.maxRetryAfter else { return response }
                    wait = asked
                } else {
                    wait = jittered(nominal, by: policy.jitter)
                }
            } catch {
                guard !isLast, RetryPolicy.isRetryable(error), !Task.isCancelled else { throw error }
                wait = jittered(
                    policy.nominalDelay(afterAttempt: context.attempt - firstAttempt + 1),
                    by: policy.jitter
                )
            }
            try await clock.sleep(for: wait)
            context.attempt += 1
        }
    }

    private func jittered(_ delay: Duration, by jitter: Double) -> Duration {
        guard jitter > 0 else { return delay }
        return delay * (1 - Double.random(in: 0...jitter))
    }
}
