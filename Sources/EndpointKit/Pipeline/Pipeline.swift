import Foundation

/// The engine: the one path from a prepared call to a response, which every verb of ``EndpointClient`` takes.
///
/// ``run(_:body:validating:)`` is its one entry point. It takes what the caller will do with the body
/// (collect it up to a limit, stream it with a buffer bound, or write it to a sink) and runs, in order: the
/// middleware chain; for each attempt its number, the credential check and the one deadline
/// (`Pipeline+Attempt.swift`, `Pipeline+Deadline.swift`); each hop's check, the transport and the redirects
/// (`Pipeline+Hops.swift`); then the validators and the status check, whose "send again" starts a new attempt
/// on the same counter and clock (`Pipeline+Validation.swift`). Every error leaves it naming the request, the
/// hop, the true number of attempts and the redacted `curl` command, with the call's credentials scrubbed.
///
/// A class: each call captures it in several closures, and a reference is copied with one retain where the
/// fields would take one each.
final class Pipeline: Sendable {
    let transport: any Transport
    let middleware: [any Middleware]
    /// The middleware that also instrument every request on the wire, found once.
    let instruments: [any HopInstrument]
    let validators: [ResponseValidator]
    let redirectPolicy: RedirectPolicy
    let observers: [any ExchangeObserver]
    let clock: any Clock<Duration>
    let redactor: Redactor
    /// How the attempt's deadline is enforced, chosen once, when the client is made.
    let deadlines: DeadlineEnforcement
    /// Whether `clock` is the real one (a `ContinuousClock`), found once.
    let isRealTime: Bool
    /// The HTTP cache, or `nil` when the client has none.
    let cache: HTTPCache?
    /// The client's owner of background work (a revalidation), held weakly: the work holds this pipeline.
    let background: TaskOwner.Reference

    /// How many times validators may ask to send one call again.
    static let maxValidatorRetries = 3

    init(
        transport: any Transport,
        middleware: [any Middleware],
        validators: [ResponseValidator],
        redirectPolicy: RedirectPolicy,
        observers: [any ExchangeObserver],
        clock: any Clock<Duration>,
        redactor: Redactor,
        cache: HTTPCache?,
        background: TaskOwner
    ) {
        self.transport = transport
        self.middleware = middleware
        instruments = middleware.compactMap { $0 as? any HopInstrument }
        self.validators = validators
        self.redirectPolicy = redirectPolicy
        self.observers = observers
        self.clock = clock
        self.redactor = redactor
        self.cache = cache
        self.background = TaskOwner.Reference(background)
        isRealTime = clock is ContinuousClock
        deadlines = transport.enforcesTimeout && isRealTime ? .byTransport : .byTimer(clock)
    }

    /// What a run returns: the final response (its body collected, streaming, or written, as asked) and the
    /// call it belongs to.
    struct Result: Sendable {
        var response: TransportResponse
        /// The call's state: its attempt count, the secrets it sent, its observers and its timings.
        var call: CallState
        /// Attempts started, at least 1.
        var attempts: Int { max(call.attemptCount, 1) }
    }

    /// Runs `prepared` through the middleware, its attempts and hops, and (unless `validating` is `false`) the
    /// validators and the status check; `body` says what the caller does with the final body.
    func run(_ prepared: PreparedCall, body: ResponseBodyHandling, validating: Bool = true)
        async throws(EndpointError) -> Result
    {
        let call = CallState(
            observers: observers,
            redactor: redactor(for: prepared),
            clock: clock,
            isRealTime: isRealTime,
            route: prepared.route
        )
        let request = prepared.request
        let context = RequestContext(
            options: prepared.options,
            requiresAuthentication: prepared.requiresAuthentication,
            timeout: prepared.timeout,
            clock: clock,
            call: call
        )
        // Without middleware the attempt is called directly, with no closure made for it.
        let chain = middleware.isEmpty ? nil : chain(prepared, body: body)
        do throws(EndpointError) {
            var validatorRetries = 0
            while true {
                let response: TransportResponse
                do {
                    if let chain {
                        response = try await chain(request, context: context)
                    } else {
                        response = try await attempt(request, context: context, prepared: prepared, body: body)
                    }
                } catch {
                    throw EndpointError.wrapping(error)
                }
                guard validating, let action = try await verdict(on: response, for: request, call: call) else {
                    return Result(response: response, call: call)
                }
                guard validatorRetries < Self.maxValidatorRetries else {
                    throw EndpointError(
                        .responseRejected,
                        "validators asked to send the request again more than \(Self.maxValidatorRetries) times",
                        request: call.redactor.summary(of: request),
                        statusCode: response.statusCode,
                        responseHeaders: response.headers,
                        body: response.bufferedBody
                    )
                }
                validatorRetries += 1
                try await perform(action)
            }
        } catch {
            throw completing(error, for: request, call: call)
        }
    }

    /// The client's redaction, plus the names `prepared`'s kind places credentials under.
    func redactor(for prepared: PreparedCall) -> Redactor { redactor(adding: prepared.credentialNames) }

    /// The client's redaction, plus `names` (a kind's credential names): the one rule every call, page, model
    /// load and outbox write of a kind is redacted by.
    func redactor(adding names: CredentialNames?) -> Redactor {
        guard let names, !names.isEmpty else { return redactor }
        return redactor.adding(names)
    }

    /// The middleware, first to last, around the attempt.
    private func chain(_ prepared: PreparedCall, body: ResponseBodyHandling) -> MiddlewareNext {
        let innermost = MiddlewareNext { request, context in
            try await self.attempt(request, context: context, prepared: prepared, body: body)
        }
        return middleware.reversed().reduce(innermost) { next, step in
            MiddlewareNext { request, context in try await step.intercept(request, context: context, next: next) }
        }
    }

    /// `error` as it leaves the engine: naming the request, the hop that failed after redirects, the true
    /// number of attempts and the redacted `curl` command, with the call's credentials scrubbed.
    func completing(_ error: EndpointError, for request: TransportRequest, call: CallState) -> EndpointError {
        var error = error
        let redactor = call.redactor
        if error.request == nil { error.request = redactor.summary(of: request) }
        // After a redirect, the hop that failed is another request than the one the caller made.
        if error.hop == nil, let last = call.lastRequest, last.url != request.url {
            error.hop = redactor.summary(of: last)
        }
        let count = call.attemptCount
        if count > 0 { error.attempts = count }
        if error.curlCommand == nil {
            error.curlCommand = CURLCommand(request, redactor: redactor, revealingSecrets: false).command
        }
        return error.redactingSecrets(call.secrets)
    }
}
