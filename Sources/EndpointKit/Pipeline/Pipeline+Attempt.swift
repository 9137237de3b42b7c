import Foundation

extension Pipeline {
    /// One attempt, the innermost step of the middleware chain: numbered on the call's one counter, reported to
    /// observers, checked for credentials, and timed by one deadline that covers every hop (and the body, when
    /// it is collected).
    func attempt(
        _ request: TransportRequest,
        context: RequestContext,
        prepared: PreparedCall,
        body: ResponseBodyHandling
    ) async throws -> TransportResponse {
        let call = context.call
        let number = call?.beginAttempt() ?? context.attempt
        call?.emit(.attemptStarted(attempt: number, request: (call?.redactor ?? redactor).summary(of: request)))
        if Task.isCancelled {
            throw EndpointError(.cancelled, "the task was cancelled before the request was sent")
        }
        // Before the first hop: a redirect to another origin rightly drops the credentials later.
        if context.requiresAuthentication, !request.headers.contains(.authorization) {
            throw EndpointError(
                .invalidRequest,
                "the endpoint's kind needs credentials, but no middleware (such as BearerAuthentication) added them"
            )
        }
        let hops = Hops(pipeline: self, prepared: prepared, body: body, context: context, attempt: number)
        guard let timeout = context.timeout else { return try await hops.run(request, deadline: nil) }
        switch deadlines {
        case .byTransport:
            // Each hop gets the time left of the one deadline, and the transport times it exactly.
            return try await hops.run(request, deadline: ContinuousClock.now + timeout)
        case .byTimer(let clock):
            return try await racing(timeout, on: clock) { try await hops.run(request, deadline: nil) }
        }
    }
}
