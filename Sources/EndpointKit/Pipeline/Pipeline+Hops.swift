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

        /// The call's redaction: the client's, plus the names the endpoint's kind places credentials under.
        var redactor: Redactor { context.call?.redactor ?? pipeline.redactor(for: prepared) }

        /// Sends `request` and follows its redirects; `deadline` is set when the transport enforces it.
        func run(_ request: TransportRequest, deadline: ContinuousClock.Instant?) async throws -> TransportResponse {
            let redactor = redactor
            let policy = pipeline.redirectPolicy
            var current = request
            // An endpoint with an absolute URL at another origin goes there as a redirect would: without
            // credentials.
            if prepared.leavesEnvironmentOrigin { redactor.removeCredentials(from: &current.headers) }
            var hop = 0
            while true {
                let options = TransportOptions(timeout: context.timeout, idleTimeout: prepared.idleTimeout, body: body)
                let response = try await send(current, options: options, hop: hop, deadline: deadline)
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

        /// One hop, as a chain of steps: observe → cache (serves, or makes the request conditional) → the header
        /// check, truly last, on what goes on the wire → the transport and the body. A fetch the cache step claimed
        /// on a miss ends with the hop, however it ends.
        ///
        /// With `deadline` (when the transport enforces it), the cache waits for another caller's fetch at most until
        /// then, and the transport gets the time left after the cache's look-up.
        private func send(
            _ request: TransportRequest,
            options: TransportOptions,
            hop: Int,
            deadline: ContinuousClock.Instant?
        ) async throws -> TransportResponse {
            let step = await CacheStep(
                cache: pipeline.cache,
                request: request,
                options: context.options,
                body: options.body,
                redactor: redactor,
                deadline: deadline
            )
            do {
                var options = options
                if let deadline, let timeout = context.timeout {
                    let left = ContinuousClock.now.duration(to: deadline)
                    guard left > .zero else { throw EndpointError.deadlinePassed(timeout) }
                    options.timeout = left
                }
                let response = try await send(request, options: options, hop: hop, step: step)
                await step?.endFill()
                return response
            } catch {
                await step?.endFill()
                throw namingTheSetting(error, deadline: deadline)
            }
        }

        /// `error`, which the transport timed with the time left of the deadline, naming the caller's setting when
        /// it is the deadline that passed (an error of the transport's own says the time it was given).
        private func namingTheSetting(_ error: any Error, deadline: ContinuousClock.Instant?) -> any Error {
            guard var timedOut = error as? EndpointError, timedOut.kind == .timedOut, let deadline,
                let timeout = context.timeout, ContinuousClock.now >= deadline
            else { return error }
            timedOut.message = EndpointError.deadlinePassed(timeout).message
            return timedOut
        }

        /// The hop's steps after the cache's look-up.
        private func send(_ request: TransportRequest, options: TransportOptions, hop: Int, step: CacheStep?)
            async throws -> TransportResponse
        {
            context.call?.remember(request)
            var observation = HopObservation(
                request: request,
                context: context,
                instruments: pipeline.instruments,
                redactor: redactor,
                attempt: attempt,
                hop: hop
            )
            let options = reportingUpload(of: request, options: options)
            if let step {
                switch try step.decide(for: request) {
                case .serve(let stored):
                    return observation.served(stored, for: request)
                case .serveWhileRevalidating(let stored, _):
                    step.revalidateInBackground(owner: pipeline.background) { [pipeline, prepared] in
                        await pipeline.revalidate(prepared, body: options.body)
                    }
                    return observation.served(stored, for: request)
                case .send(let conditional):
                    observation.outgoing = conditional
                }
            }
            observation.willSend()
            // The header check sees what goes on the wire, the conditions the cache added and the instruments'
            // headers included.
            if let problem = observation.outgoing.problem {
                // Nothing goes on the wire: the instruments' trackers end, observers hear of no exchange.
                let error = EndpointError(.invalidRequest, problem)
                observation.complete(error, sent: false)
                throw error
            }
            return try await transmit(request, options: options, hop: hop, step: step, observation: &observation)
        }

        /// The transport and the body: the response to `request` as the caller asked for its body, with the
        /// cache's part after it (store, freshen from a 304, or a stale response in place of a failure).
        private func transmit(
            _ request: TransportRequest,
            options: TransportOptions,
            hop: Int,
            step: CacheStep?,
            observation: inout HopObservation
        ) async throws -> TransportResponse {
            let sentAt = step?.cache.now()
            do {
                // Never handed to a transport once cancelled, whatever it would do with a task cancelled early.
                if Task.isCancelled {
                    throw EndpointError(.cancelled, "the task was cancelled before the request was sent")
                }
                var response = try await pipeline.transport.send(observation.outgoing, options: options)
                if response.url == nil { response.url = request.url }
                observation.headArrived(response, for: request)
                await pipeline.cache?.invalidate(
                    after: request,
                    statusCode: response.statusCode,
                    headers: response.headers
                )
                response = try await readBody(of: response, options: options, observation: &observation)
                if let step, let sentAt, !observation.isStreamed {
                    guard let finished = await step.finish(response, to: request, sentAt: sentAt) else {
                        // A 304 for nothing stored: once more, without conditions.
                        observation.complete(nil)
                        return try await uncached().send(request, options: options, hop: hop, step: nil)
                    }
                    // The record keeps what the wire carried (a 304 of no bytes); the caller gets the stored 200.
                    response = finished
                    observation.source = response.source
                    observation.cacheAnswered(response.source, for: request)
                }
                observation.complete(nil)
                return response
            } catch {
                let wrapped = EndpointError.wrapping(error)
                observation.complete(wrapped)
                if wrapped.kind != .cancelled, let stale = step?.staleOnError(to: request) {
                    return observation.served(stale, for: request)
                }
                throw wrapped
            }
        }

        /// The body as the caller asked for it: collected whole inside the attempt (so that retries and the
        /// deadline cover it too), or left streaming, with an error status's body read here so the error keeps it.
        private func readBody(
            of response: TransportResponse,
            options: TransportOptions,
            observation: inout HopObservation
        ) async throws -> TransportResponse {
            var response = response
            guard case .collect(let limit) = options.body else {
                if !response.isSuccess {
                    let data = try await response.body.prefix(EndpointError.bodyLimit)
                    observation.received = data.count
                    response.body = ResponseBody(data)
                } else {
                    observation.isStreamed = true
                }
                return response
            }
            let progress = observation.bodyProgress(expected: response.body.length)
            let data = try await response.body.collect(upTo: limit, progress: progress)
            observation.received = data.count
            response.body = ResponseBody(data)
            return response
        }

        /// `options` reporting the upload's progress to the call's observers, when someone observes them.
        private func reportingUpload(of request: TransportRequest, options: TransportOptions) -> TransportOptions {
            guard let call = context.call, call.isObserved, request.body != nil else { return options }
            var options = options
            let attempt = self.attempt
            options.uploadProgress = { sent, expected in
                call.emit(.bytesSent(attempt: attempt, sent: sent, expected: expected))
            }
            return options
        }

        /// These hops with the cache out of them.
        private func uncached() -> Hops {
            var bare = context
            bare.options.isCached = false
            return Hops(pipeline: pipeline, prepared: prepared, body: body, context: bare, attempt: attempt)
        }
    }
}
