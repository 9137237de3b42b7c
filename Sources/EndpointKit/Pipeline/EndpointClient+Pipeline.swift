import Foundation

extension EndpointClient {
    /// How many times validators may ask to send one call again.
    static let maxValidatorRetries = 3

    /// Timeouts from this many seconds up (about 31 years) mean "no deadline".
    static let longestDeadline: TimeInterval = 1e9

    /// Runs the chain, then the validators and the status check, sending again when a validator asks.
    ///
    /// Every error leaves with the request summary and the true number of attempts.
    func execute(
        _ request: TransportRequest,
        context: RequestContext,
        bodyLimit: Int?,
        validating: Bool
    ) async throws(EndpointError) -> TransportResponse {
        let call = context.call
        do throws(EndpointError) {
            var validatorRetries = 0
            while true {
                var attemptContext = context
                attemptContext.attempt = (call?.attemptCount ?? 0) + 1
                let response = try await runChain(request, context: attemptContext, bodyLimit: bodyLimit)
                guard validating else { return response }
                guard let action = try await verdict(on: response, for: request, call: call) else { return response }
                guard validatorRetries < Self.maxValidatorRetries else {
                    throw EndpointError(
                        .responseRejected,
                        "validators asked to send the request again more than \(Self.maxValidatorRetries) times",
                        request: redactor.summary(of: request),
                        statusCode: response.statusCode,
                        responseHeaders: response.headers,
                        body: response.bufferedBody
                    )
                }
                validatorRetries += 1
                try await perform(action, for: request, context: context)
            }
        } catch {
            var error = error
            if error.request == nil { error.request = redactor.summary(of: request) }
            // After a redirect, the hop that failed is another request than the one the caller made.
            if error.hop == nil, let last = call?.lastRequest, last.url != request.url {
                error.hop = redactor.summary(of: last)
            }
            if let count = call?.attemptCount, count > 0 { error.attempts = count }
            throw error.redactingSecrets(call?.secrets ?? [])
        }
    }

    /// `nil` when every validator and the status check accept; the retry action when one asks for a retry.
    private func verdict(on response: TransportResponse, for request: TransportRequest, call: CallState?)
        async throws(EndpointError) -> ResponseValidator.RetryAction?
    {
        func failure(_ kind: EndpointError.Kind, _ message: String, _ underlying: (any Error)?) -> EndpointError {
            EndpointError(
                kind,
                message,
                request: redactor.summary(of: request),
                statusCode: response.statusCode,
                responseHeaders: response.headers,
                body: response.bufferedBody,
                underlyingError: underlying
            )
        }
        for validator in validators {
            var verdict: ResponseValidator.Verdict
            do {
                verdict = try await validator.validate(response, for: request)
                // A validator that fails the call may have decoded the body into the caller's own type, which
                // nothing redacts later: when the body holds a credential this call sent (a server echoing it),
                // it is asked again with the credential replaced. Looked for only then, not on every response.
                if case .fail = verdict, let body = response.body.bufferedData, !body.isEmpty,
                    let scrubbed = EndpointError.scrubbing(body, of: call?.secrets ?? redactor.secrets(of: request))
                {
                    var seen = response
                    seen.body = ResponseBody(scrubbed)
                    verdict = try await validator.validate(seen, for: request)
                }
            } catch {
                throw failure(.responseRejected, "a validator failed: \(error)", error)
            }
            switch verdict {
            case .accept:
                continue
            case .fail(let error as EndpointError):
                throw error
            case .fail(let error):
                throw failure(.responseRejected, "the server reported an error: \(error)", error)
            case .retry(let action):
                return action
            }
        }
        guard response.isSuccess else {
            throw failure(.unacceptableStatus, "the server answered \(response.statusCode)", nil)
        }
        return nil
    }

    private func perform(
        _ action: ResponseValidator.RetryAction,
        for request: TransportRequest,
        context: RequestContext
    )
        async throws(EndpointError)
    {
        do {
            switch action {
            case .immediately: break
            case .after(let delay): try await context.clock.sleep(for: delay)
            case .afterRunning(let operation): try await operation()
            }
        } catch {
            throw EndpointError.wrapping(error)
        }
    }

    /// The middleware chain around one attempt.
    func runChain(_ request: TransportRequest, context: RequestContext, bodyLimit: Int?) async throws(EndpointError)
        -> TransportResponse
    {
        let innermost = MiddlewareNext { request, context in
            try await attempt(request, context: context, bodyLimit: bodyLimit)
        }
        let chain = middleware.reversed().reduce(innermost) { next, step in
            MiddlewareNext { request, context in try await step.intercept(request, context: context, next: next) }
        }
        do {
            return try await chain(request, context: context)
        } catch {
            throw EndpointError.wrapping(error)
        }
    }

    /// One attempt: numbered, observed, and timed by one deadline that covers every hop and the body.
    private func attempt(_ request: TransportRequest, context: RequestContext, bodyLimit: Int?) async throws
        -> TransportResponse
    {
        let call = context.call
        let number = call?.beginAttempt() ?? context.attempt
        call?.emit(.attemptStarted(attempt: number, request: redactor.summary(of: request)))
        if Task.isCancelled {
            throw EndpointError(.cancelled, "the task was cancelled before the request was sent")
        }
        guard context.timeout > 0, !context.timeout.isNaN else {
            throw EndpointError(.invalidRequest, "the timeout must be positive, not \(context.timeout)")
        }
        guard context.timeout.isFinite, context.timeout < Self.longestDeadline else {
            return try await followingRedirects(
                request,
                context: context,
                attempt: number,
                bodyLimit: bodyLimit,
                deadline: nil
            )
        }
        let timeout = Duration.roundedUp(seconds: context.timeout)
        if transport.enforcesTimeout, context.clock is ContinuousClock {
            // The transport times each hop exactly; no timer task of our own, which costs a measurable share of a
            // fast request. Each hop gets the time left of the one deadline.
            let deadline = ContinuousClock.now + timeout
            return try await followingRedirects(
                request,
                context: context,
                attempt: number,
                bodyLimit: bodyLimit,
                deadline: deadline
            )
        }
        if context.clock is ContinuousClock {
            return try await runUnderSharedTimer(timeout: timeout, seconds: context.timeout) {
                try await followingRedirects(
                    request,
                    context: context,
                    attempt: number,
                    bodyLimit: bodyLimit,
                    deadline: nil
                )
            }
        }
        let clock = context.clock
        return try await withThrowingTaskGroup(of: TransportResponse?.self) { group in
            group.addTask {
                try await followingRedirects(
                    request,
                    context: context,
                    attempt: number,
                    bodyLimit: bodyLimit,
                    deadline: nil
                )
            }
            group.addTask {
                try await clock.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let response = first else {
                throw EndpointError.deadlinePassed(.seconds(context.timeout))
            }
            return response
        }
    }

    /// Runs `work` in a task of its own that the shared deadline timer cancels when `timeout` passes: one task
    /// instead of a group with a sleeping timer task, which arms a system timer per request.
    private func runUnderSharedTimer(
        timeout: Duration,
        seconds: TimeInterval,
        _ work: @escaping @Sendable () async throws -> TransportResponse
    ) async throws -> TransportResponse {
        // Awaited below and cancelled with the caller: not fire-and-forget.
        let task = Task { try await work() }
        let expired = Locked(false)
        let token = DeadlineScheduler.shared.schedule(after: timeout) {
            expired.withLock { $0 = true }
            task.cancel()
        }
        defer { DeadlineScheduler.shared.cancel(token) }
        do {
            return try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
        } catch {
            guard expired.withLock({ $0 }) else { throw error }
            throw EndpointError.deadlinePassed(.seconds(seconds))
        }
    }

    /// The hops of one attempt; `deadline` is set when the transport enforces it.
    private func followingRedirects(
        _ request: TransportRequest,
        context: RequestContext,
        attempt: Int,
        bodyLimit: Int?,
        deadline: ContinuousClock.Instant?
    ) async throws -> TransportResponse {
        let call = context.call
        // Once per call, before the first hop: a redirect to another origin rightly drops the credentials.
        if context.requiresAuthentication, !request.headers.contains(.authorization) {
            throw EndpointError(
                .invalidRequest,
                "the endpoint's kind needs credentials, but no middleware (such as BearerAuthentication) added them"
            )
        }
        var current = request
        // An endpoint with an absolute URL at another origin goes there as a redirect would: without credentials.
        if current.leavesEnvironmentOrigin { redactor.removeCredentials(from: &current.headers) }
        var hop = 0
        while true {
            if let deadline {
                let left = ContinuousClock.now.duration(to: deadline)
                guard left > .zero else {
                    throw EndpointError.deadlinePassed(.seconds(context.timeout))
                }
                current.timeout = left
            }
            let response = try await send(current, context: context, attempt: attempt, hop: hop, bodyLimit: bodyLimit)
            guard let next = try redirectPolicy.nextRequest(after: response, to: current, redactor: redactor) else {
                return response
            }
            guard hop < redirectPolicy.maxRedirects else {
                throw EndpointError(
                    .tooManyRedirects,
                    "more than \(redirectPolicy.maxRedirects) redirects",
                    statusCode: response.statusCode
                )
            }
            call?.emit(
                .redirected(
                    attempt: attempt,
                    from: redactor.summary(of: current),
                    to: redactor.summary(of: next),
                    statusCode: response.statusCode
                )
            )
            hop += 1
            current = next
        }
    }

    /// One hop: the last check of the request, the transport, and the body read up to `bodyLimit` bytes.
    private func send(
        _ request: TransportRequest,
        context: RequestContext,
        attempt: Int,
        hop: Int,
        bodyLimit: Int?
    ) async throws -> TransportResponse {
        if let problem = request.problem {
            throw EndpointError(.invalidRequest, problem)
        }
        let call = context.call
        call?.remember(request)
        let start = call?.isObserved == true ? Stopwatch(context.clock) : nil
        var received = 0
        var statusCode: Int?
        var isStreamed = false
        func complete(_ error: EndpointError?) {
            guard let call, let start else { return }
            var record = ExchangeRecord(
                request: request,
                redactor: redactor,
                statusCode: statusCode,
                bytesReceived: received,
                duration: start.elapsed,
                attempt: attempt,
                hop: hop,
                error: error
            )
            record.isStreamed = isStreamed
            record.isLogged = context.options.isLogged
            call.emit(.exchangeCompleted(record))
        }
        var request = request
        request.wholeBodyLimit = bodyLimit
        // A streamed body is the caller's to read for as long as it lasts: the deadline covers the head only.
        request.timeoutCoversBody = bodyLimit != nil
        if let call, call.isObserved, request.body != nil {
            request.uploadProgress = { sent, expected in
                call.emit(.bytesSent(attempt: attempt, sent: sent, expected: expected))
            }
        }
        do {
            var response = try await transport.send(request)
            if response.headReceivedAt == nil { response.headReceivedAt = .now }
            if response.url == nil { response.url = request.url }
            statusCode = response.statusCode
            call?.emit(
                .responseReceived(
                    attempt: attempt,
                    request: redactor.summary(of: request),
                    statusCode: response.statusCode
                )
            )
            let expected = response.body.length
            let progress: ((Int) -> Void)? = call.flatMap { call in
                guard call.isObserved else { return nil }
                return { count in call.emit(.bytesReceived(attempt: attempt, received: count, expected: expected)) }
            }
            guard let bodyLimit else {
                // Streamed to the caller; an error status's body is read here (up to what an error keeps), so
                // that the error carries it.
                if !response.isSuccess {
                    let data = try await response.body.prefix(EndpointError.bodyLimit)
                    received = data.count
                    response.body = ResponseBody(data)
                } else {
                    isStreamed = true
                }
                complete(nil)
                return response
            }
            // Read in full inside the attempt, so that retries and the deadline cover the body too.
            let data = try await response.body.collect(upTo: bodyLimit, progress: progress)
            received = data.count
            response.body = ResponseBody(data)
            complete(nil)
            return response
        } catch {
            let wrapped = EndpointError.wrapping(error)
            complete(wrapped)
            throw wrapped
        }
    }
}
