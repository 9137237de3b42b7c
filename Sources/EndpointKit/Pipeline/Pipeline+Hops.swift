import Foundation

extension Pipeline {
    /// The hops of one attempt: the request, then each redirect the ``RedirectPolicy`` follows. Each hop is
    /// checked, observed, and handed to the transport with its ``TransportOptions``.
    struct Hops: Sendable {
        let pipeline: Pipeline
        let prepared: PreparedCall
        let body: ResponseBodyHandling
        let context: RequestContext
        let attempt: Int

        /// Sends `request` and follows its redirects; `deadline` is set when the transport enforces it.
        func run(_ request: TransportRequest, deadline: ContinuousClock.Instant?) async throws -> TransportResponse {
            let redactor = pipeline.redactor
            let policy = pipeline.redirectPolicy
            var current = request
            // An endpoint with an absolute URL at another origin goes there as a redirect would: without
            // credentials.
            if prepared.leavesEnvironmentOrigin { redactor.removeCredentials(from: &current.headers) }
            var hop = 0
            while true {
                var options = TransportOptions(timeout: context.timeout, idleTimeout: prepared.idleTimeout, body: body)
                if let deadline, let timeout = context.timeout {
                    let left = ContinuousClock.now.duration(to: deadline)
                    guard left > .zero else { throw EndpointError.deadlinePassed(timeout) }
                    options.timeout = left
                }
                let response = try await send(current, options: options, hop: hop)
                guard let next = try policy.nextRequest(after: response, to: current, redactor: redactor) else {
                    return response
                }
                guard hop < policy.maxRedirects else {
                    throw EndpointError(
                        .tooManyRedirects,
                        "more than \(policy.maxRedirects) redirects",
                        statusCode: response.statusCode
                    )
                }
                context.call?.emit(
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

        /// One hop: the last check of the request, the transport, and the body as the caller asked for it.
        private func send(_ request: TransportRequest, options: TransportOptions, hop: Int) async throws
            -> TransportResponse
        {
            if let problem = request.problem {
                throw EndpointError(.invalidRequest, problem)
            }
            let call = context.call
            let attempt = self.attempt
            let redactor = pipeline.redactor
            call?.remember(request)
            let isObserved = call?.isObserved == true
            let start = isObserved ? Stopwatch(context.clock) : nil
            var received = 0
            var statusCode: Int?
            var isStreamed = false
            var source = ResponseSource.network
            // What goes on the wire: the request, or the cache's conditional form of it.
            var outgoing = request
            func complete(_ error: EndpointError?) {
                guard let call, let start else { return }
                var record = ExchangeRecord(
                    request: outgoing,
                    redactor: redactor,
                    statusCode: statusCode,
                    bytesReceived: received,
                    duration: start.elapsed,
                    attempt: attempt,
                    hop: hop,
                    error: error
                )
                record.isStreamed = isStreamed
                record.source = source
                record.isLogged = context.options.isLogged
                call.emit(.exchangeCompleted(record))
            }
            /// A stored response handed back without sending: observed like an exchange, marked as the cache's.
            func served(_ stored: TransportResponse) -> TransportResponse {
                call?.headArrived(nil)
                statusCode = stored.statusCode
                received = stored.bufferedBody.count
                source = stored.source
                call?.emit(.cache(attempt: attempt, request: redactor.summary(of: request), source: stored.source))
                complete(nil)
                return stored
            }
            var options = options
            if let call, isObserved, request.body != nil {
                options.uploadProgress = { sent, expected in
                    call.emit(.bytesSent(attempt: attempt, sent: sent, expected: expected))
                }
            }
            // The cache answers, or makes the request conditional, when the body is collected.
            let step = CacheStep(
                cache: pipeline.cache,
                request: request,
                options: context.options,
                body: options.body,
                redactor: redactor
            )
            if let step {
                switch try step.decide(for: request) {
                case .serve(let stored):
                    return served(stored)
                case .serveWhileRevalidating(let stored, let conditional):
                    step.revalidateInBackground(conditional, transport: pipeline.transport, options: options)
                    return served(stored)
                case .send(let conditional):
                    outgoing = conditional
                }
            }
            let sentAt = step?.cache.now()
            do {
                var response = try await pipeline.transport.send(outgoing, options: options)
                call?.headArrived(response.headReceivedAt)
                if response.url == nil { response.url = request.url }
                statusCode = response.statusCode
                call?.emit(
                    .responseReceived(
                        attempt: attempt,
                        request: redactor.summary(of: request),
                        statusCode: response.statusCode
                    )
                )
                pipeline.cache?.invalidate(after: request, statusCode: response.statusCode, headers: response.headers)
                guard case .collect(let limit) = options.body else {
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
                let expected = response.body.length
                let progress: ((Int) -> Void)? =
                    isObserved
                    ? { count in call?.emit(.bytesReceived(attempt: attempt, received: count, expected: expected)) }
                    : nil
                let data = try await response.body.collect(upTo: limit, progress: progress)
                received = data.count
                response.body = ResponseBody(data)
                if let step, let sentAt {
                    guard let finished = step.finish(response, to: request, sentAt: sentAt) else {
                        // A 304 for nothing stored: once more, without conditions.
                        complete(nil)
                        var bare = context
                        bare.options.isCached = false
                        let again = Hops(
                            pipeline: pipeline,
                            prepared: prepared,
                            body: body,
                            context: bare,
                            attempt: attempt
                        )
                        return try await again.send(request, options: options, hop: hop)
                    }
                    response = finished
                    // The record keeps what the wire carried (a 304 of no bytes); the caller gets the stored 200.
                    source = response.source
                    call?.emit(
                        .cache(attempt: attempt, request: redactor.summary(of: request), source: response.source)
                    )
                }
                complete(nil)
                return response
            } catch {
                let wrapped = EndpointError.wrapping(error)
                complete(wrapped)
                if wrapped.kind != .cancelled, let stale = step?.staleOnError(to: request) {
                    return served(stale)
                }
                throw wrapped
            }
        }
    }
}
