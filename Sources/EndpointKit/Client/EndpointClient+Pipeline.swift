import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension EndpointClient {
    /// How many times validators may ask to send one call again.
    static let maxValidatorRetries = 3

    /// Timeouts from this many seconds up (about 31 years) mean "no deadline".
    static let longestDeadline: TimeInterval = 1e9

    /// Runs the chain, then the validators and the status check, sending again when a validator asks.
    func execute(_ request: TransportRequest, context: RequestContext, validating: Bool) async throws(EndpointError)
        -> HTTPResponse
    {
        var validatorRetries = 0
        while true {
            let response = try await runChain(request, context: context)
            guard validating else { return response }
            switch try await verdict(on: response, for: request) {
            case nil:
                return response
            case .some(let action):
                guard validatorRetries < Self.maxValidatorRetries else {
                    throw EndpointError(
                        .serverError,
                        "validators asked to send the request again more than \(Self.maxValidatorRetries) times",
                        request: RequestSummary(request.urlRequest),
                        statusCode: response.statusCode,
                        responseHeaders: response.headers,
                        body: response.body
                    )
                }
                validatorRetries += 1
                try await perform(action, for: request)
            }
        }
    }

    /// `nil` when every validator and the status check accept; the retry action when one asks for a retry.
    private func verdict(on response: HTTPResponse, for request: TransportRequest)
        async throws(EndpointError) -> ResponseValidator.RetryAction?
    {
        func failure(_ kind: EndpointError.Kind, _ message: String, _ underlying: (any Error)?) -> EndpointError {
            var error = EndpointError(
                kind,
                message,
                request: RequestSummary(request.urlRequest),
                statusCode: response.statusCode,
                responseHeaders: response.headers,
                body: response.body,
                underlyingError: underlying
            )
            error.attempts = response.attempt
            return error
        }
        for validator in validators {
            let verdict: ResponseValidator.Verdict
            do {
                verdict = try await validator.validate(response, for: request)
            } catch {
                throw failure(.serverError, "a validator failed: \(error)", error)
            }
            switch verdict {
            case .accept:
                continue
            case .fail(let error as EndpointError):
                throw error
            case .fail(let error):
                throw failure(.serverError, "the server reported an error: \(error)", error)
            case .retry(let action):
                return action
            }
        }
        guard response.isSuccess else {
            throw failure(.unacceptableStatus, "the server answered \(response.statusCode)", nil)
        }
        return nil
    }

    private func perform(_ action: ResponseValidator.RetryAction, for request: TransportRequest)
        async throws(EndpointError)
    {
        do {
            switch action {
            case .immediately: break
            case .after(let delay): try await clock.sleep(for: delay)
            case .afterRunning(let operation): try await operation()
            }
        } catch {
            throw EndpointError.transportFailure(error, request: RequestSummary(request.urlRequest))
        }
    }

    /// The middleware chain, then redirects, then the transport under the deadline.
    func runChain(_ request: TransportRequest, context: RequestContext) async throws(EndpointError) -> HTTPResponse {
        let innermost = MiddlewareNext { request, context in
            try await followingRedirects(request, context: context)
        }
        let chain = middleware.reversed().reduce(innermost) { next, step in
            MiddlewareNext { request, context in try await step.intercept(request, context: context, next: next) }
        }
        do {
            return try await chain(request, context: context)
        } catch {
            throw EndpointError.transportFailure(error, request: RequestSummary(request.urlRequest))
        }
    }

    private func followingRedirects(_ request: TransportRequest, context: RequestContext) async throws
        -> HTTPResponse
    {
        var current = request
        var hops = 0
        while true {
            let response = try await sendWithDeadline(current, context: context)
            guard let next = try redirectPolicy.nextRequest(after: response, to: current) else { return response }
            guard hops < redirectPolicy.maxRedirects else {
                throw EndpointError(
                    .tooManyRedirects,
                    "more than \(redirectPolicy.maxRedirects) redirects",
                    request: RequestSummary(request.urlRequest),
                    statusCode: response.statusCode
                )
            }
            hops += 1
            current = next
        }
    }

    /// Sends one hop through the transport, failing with `timedOut` when the deadline passes first.
    private func sendWithDeadline(_ request: TransportRequest, context: RequestContext) async throws -> HTTPResponse {
        func summary() -> RequestSummary { RequestSummary(request.urlRequest) }
        func stamped(_ error: any Error) -> EndpointError {
            var error = EndpointError.transportFailure(error, request: summary())
            if error.attempts == nil { error.attempts = context.attempt }
            return error
        }
        if context.requiresAuthentication, request.urlRequest.value(forHTTPHeaderField: "Authorization") == nil {
            throw EndpointError(
                .invalidRequest,
                "the endpoint's kind needs credentials, but no middleware (such as BearerAuthentication) added them",
                request: summary()
            )
        }
        if Task.isCancelled { throw stamped(CancellationError()) }
        guard context.timeout > 0 else {
            throw EndpointError(
                .invalidRequest,
                "the timeout must be positive, not \(context.timeout)",
                request: summary()
            )
        }
        let transport = self.transport
        guard context.timeout.isFinite, context.timeout < Self.longestDeadline else {
            // No deadline of EndpointKit's own; URLSession's idle timeout still applies.
            do {
                var response = try await transport.send(request)
                response.attempt = context.attempt
                return response
            } catch {
                throw stamped(error)
            }
        }
        let clock = self.clock
        let timeout = Duration.milliseconds(Int((context.timeout * 1000).rounded(.up)))
        do {
            var response = try await withThrowingTaskGroup(of: HTTPResponse?.self) { group in
                group.addTask { try await transport.send(request) }
                group.addTask {
                    try await clock.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let response = first else {
                    throw EndpointError(
                        .timedOut,
                        "no response within \(context.timeout) s",
                        request: summary()
                    )
                }
                return response
            }
            response.attempt = context.attempt
            return response
        } catch {
            throw stamped(error)
        }
    }
}
