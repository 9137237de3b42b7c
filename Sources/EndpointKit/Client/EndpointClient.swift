import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends endpoints to a server environment and decodes their responses.
///
///     let client = EndpointClient(environment: .production)
///     let featured = try await client.response(for: .featuredItems)
///     let results = try await client.response(for: .search(for: "tea"), using: AccessToken("s3cret"))
///
/// A client is a value: copy it and change ``environment`` to send the same endpoints elsewhere. It is
/// `Sendable`; share one across tasks. Every method throws ``EndpointError`` only, and cancelling the calling
/// task cancels the transfer.
public struct EndpointClient: Sendable {
    /// Where requests go.
    public var environment: ServerEnvironment
    /// What sends requests.
    public let transport: any Transport
    /// Whether response bodies are unwrapped from an envelope; endpoints can override it.
    public let envelope: ResponseEnvelope
    /// Encoder, decoder, timeout, cache policy and headers every request starts from.
    public let defaults: RequestDefaults
    /// The steps every request passes through, outermost first; see ``Middleware`` for the recommended order.
    public let middleware: [any Middleware]
    /// Judges each final response, in order, before the 2xx status check.
    public let validators: [ResponseValidator]
    /// How redirects are followed.
    public let redirectPolicy: RedirectPolicy
    /// What watches every call: attempts, redirect hops, progress and decoding. Middleware that are also
    /// ``ExchangeObserver``s (such as ``ExchangeLogging``) are added here.
    public let observers: [any ExchangeObserver]
    /// The one clock every step runs on: deadlines, retry backoff, validator delays and observer timings.
    public let clock: any Clock<Duration>
    /// The one list of secrets, from ``defaults``.
    let redactor: Redactor

    /// The decoder actually used: a copy of the defaults' decoder that also names the envelope key, so the
    /// caller's decoder is never mutated.
    let responseDecoder: JSONDecoder

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - environment: Where requests go.
    ///   - transport: What sends them; a new ``URLSessionTransport`` unless given.
    ///   - envelope: Whether bodies are wrapped, e.g. ``ResponseEnvelope/networkResponse``; ``ResponseEnvelope/plain``
    ///     unless given.
    ///   - defaults: Encoder, decoder, timeout, cache policy and headers for every request.
    ///   - middleware: The steps every request passes through, outermost first.
    ///   - validators: Judges of every final response, run in order before the 2xx status check.
    ///   - redirectPolicy: How redirects are followed; ``RedirectPolicy/default`` unless given.
    ///   - observers: What watches every call, e.g. ``ExchangeLogging``.
    ///   - clock: The clock every step runs on; tests pass a manual one (`TestClock` in `EndpointKitTesting`).
    public init(
        environment: ServerEnvironment,
        transport: any Transport = URLSessionTransport(),
        envelope: ResponseEnvelope = .plain,
        defaults: RequestDefaults = RequestDefaults(),
        middleware: [any Middleware] = [],
        validators: [ResponseValidator] = [],
        redirectPolicy: RedirectPolicy = .default,
        observers: [any ExchangeObserver] = [],
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.environment = environment
        self.transport = transport
        self.envelope = envelope
        self.defaults = defaults
        self.middleware = middleware
        self.validators = validators
        self.redirectPolicy = redirectPolicy
        self.observers = observers + middleware.compactMap { $0 as? any ExchangeObserver }
        self.clock = clock
        self.redactor = Redactor(defaults)
        let responseDecoder = defaults.decoder.copy()
        if let key = envelope.key { responseDecoder.userInfo[.networkResponseKey] = key }
        self.responseDecoder = responseDecoder
    }

    /// Sends `endpoint`, prepared by its kind with `requestData`, and returns its decoded response.
    ///
    ///     let results = try await client.response(for: .search(for: "tea"), using: AccessToken("s3cret"))
    ///
    /// The body is read in full inside each attempt, up to the endpoint's or the client's
    /// ``RequestDefaults/maximumResponseSize``, so retries and the deadline cover it. A `Response` of `Data` is
    /// the body as it is, and `String` the body as text in the response's charset (UTF-8 unless it names
    /// another).
    ///
    /// - Throws: ``EndpointError``: ``EndpointError/Kind/invalidRequest`` or ``EndpointError/Kind/encodingFailed``
    ///   before sending; ``EndpointError/Kind/transportFailed``, ``EndpointError/Kind/timedOut``,
    ///   ``EndpointError/Kind/cancelled``, ``EndpointError/Kind/responseTooLarge``,
    ///   ``EndpointError/Kind/redirectRefused``, ``EndpointError/Kind/tooManyRedirects`` or
    ///   ``EndpointError/Kind/authenticationFailed`` while sending; ``EndpointError/Kind/responseRejected`` from a
    ///   validator; ``EndpointError/Kind/unacceptableStatus`` outside 200–299;
    ///   ``EndpointError/Kind/decodingFailed``, with the coding path, when the body does not match.
    public func response<Kind: EndpointKind, Response: Decodable>(
        for endpoint: Endpoint<Kind, Response>,
        using requestData: Kind.RequestData
    ) async throws(EndpointError) -> Response {
        try await send(endpoint, using: requestData).value
    }

    /// Sends `endpoint` with `requestData` and returns the decoded value with the response it came from: status,
    /// headers, final URL, attempts and timing.
    ///
    ///     let page = try await client.send(.repositories(of: "apple"), using: token)
    ///     let next = page.headers["Link"]
    ///
    /// Validation, decoding and errors are those of ``response(for:using:)``, which returns ``Response/value``
    /// alone.
    ///
    /// - Throws: ``EndpointError``, as ``response(for:using:)`` does.
    public func send<Kind: EndpointKind, Value: Decodable>(
        _ endpoint: Endpoint<Kind, Value>,
        using requestData: Kind.RequestData
    ) async throws(EndpointError) -> EndpointKit.Response<Value> {
        let started = ContinuousClock.now
        let request = try endpoint.makeTransportRequest(in: environment, with: requestData, defaults: defaults)
        defer { request.removeTemporaryBodyFile() }
        let context = context(for: endpoint)
        do throws(EndpointError) {
            let response = try await execute(
                request,
                context: context,
                bodyLimit: endpoint.maximumResponseSize ?? defaults.maximumResponseSize,
                validating: true
            )
            let value = try decode(response, as: Value.self, for: endpoint, request: request, call: context.call)
            return EndpointKit.Response(
                value: value,
                statusCode: response.statusCode,
                headers: response.headers,
                url: response.url,
                attempts: max(context.call?.attemptCount ?? 1, 1),
                timeToFirstByte: started.duration(to: response.headReceivedAt ?? .now),
                duration: started.duration(to: .now)
            )
        } catch {
            throw attachingCURLCommand(to: error, for: request)
        }
    }

    /// Sends `endpoint`, whose kind needs no request data, and returns the decoded value with its response.
    ///
    /// - Throws: ``EndpointError``, as ``response(for:using:)`` does.
    public func send<Kind: EndpointKind, Value: Decodable>(
        _ endpoint: Endpoint<Kind, Value>
    ) async throws(EndpointError) -> EndpointKit.Response<Value> where Kind.RequestData == Void {
        try await send(endpoint, using: ())
    }

    private func decode<Kind: EndpointKind, Response: Decodable>(
        _ response: TransportResponse,
        as type: Response.Type,
        for endpoint: Endpoint<Kind, Response>,
        request: TransportRequest,
        call: CallState?
    ) throws(EndpointError) -> Response {
        do throws(EndpointError) {
            let value = try ResponseDecoding.decode(
                Response.self,
                from: response,
                envelope: endpoint.envelope ?? envelope,
                decoder: endpoint.decoder ?? responseDecoder,
                request: { redactor.summary(of: request) }
            )
            // Redacting the URL costs a parse: done only when an observer listens.
            call?.emit(.decoded(request: redactor.summary(of: request), type: "\(Response.self)", error: nil))
            return value
        } catch {
            var error = error
            if let count = call?.attemptCount, count > 0 { error.attempts = count }
            error = error.redactingSecrets(call?.secrets ?? [])
            call?.emit(.decoded(request: redactor.summary(of: request), type: "\(Response.self)", error: error))
            throw error
        }
    }

    /// Sends `endpoint`, whose kind needs no request data, and returns its decoded response.
    ///
    ///     let featured = try await client.response(for: .featuredItems)
    ///
    /// - Throws: ``EndpointError``, as ``response(for:using:)`` does.
    public func response<Kind: EndpointKind, Response: Decodable>(
        for endpoint: Endpoint<Kind, Response>
    ) async throws(EndpointError) -> Response where Kind.RequestData == Void {
        try await response(for: endpoint, using: ())
    }

    /// Sends `endpoint` through the middleware and redirects, and returns the response, read in full, without
    /// validating or decoding it.
    ///
    /// - Throws: ``EndpointError`` when the request cannot be built, no response arrives, or the body passes
    ///   ``RequestDefaults/maximumResponseSize``.
    public func rawResponse<Kind: EndpointKind, Response>(
        for endpoint: Endpoint<Kind, Response>,
        using requestData: Kind.RequestData
    ) async throws(EndpointError) -> TransportResponse {
        let request = try endpoint.makeTransportRequest(in: environment, with: requestData, defaults: defaults)
        defer { request.removeTemporaryBodyFile() }
        do throws(EndpointError) {
            return try await execute(
                request,
                context: context(for: endpoint),
                bodyLimit: endpoint.maximumResponseSize ?? defaults.maximumResponseSize,
                validating: false
            )
        } catch {
            throw attachingCURLCommand(to: error, for: request)
        }
    }

    /// The `curl` command that sends the same request as `endpoint` with `requestData`.
    ///
    ///     print(try client.curlCommand(for: .search(for: "tea"), using: token))
    ///
    /// Secrets are redacted unless `revealingSecrets` is `true`; see ``CURLCommand``. A multipart body with
    /// file parts is assembled in a temporary file that the command reads with `--data-binary @file`; that file
    /// is left in the temporary directory so the command can be run.
    ///
    /// - Throws: ``EndpointError`` when the request cannot be built.
    public func curlCommand<Kind: EndpointKind, Response>(
        for endpoint: Endpoint<Kind, Response>,
        using requestData: Kind.RequestData,
        revealingSecrets: Bool = false
    ) throws(EndpointError) -> CURLCommand {
        let request = try endpoint.makeTransportRequest(in: environment, with: requestData, defaults: defaults)
        return CURLCommand(request, redactor: redactor, revealingSecrets: revealingSecrets)
    }

    /// The `curl` command for an endpoint whose kind needs no request data.
    ///
    /// - Throws: ``EndpointError`` when the request cannot be built.
    public func curlCommand<Kind: EndpointKind, Response>(
        for endpoint: Endpoint<Kind, Response>,
        revealingSecrets: Bool = false
    ) throws(EndpointError) -> CURLCommand where Kind.RequestData == Void {
        try curlCommand(for: endpoint, using: (), revealingSecrets: revealingSecrets)
    }

    /// `error` with the redacted `curl` command of `request`, so a failed call can be replayed by hand.
    func attachingCURLCommand(to error: EndpointError, for request: TransportRequest) -> EndpointError {
        var error = error
        if error.curlCommand == nil {
            error.curlCommand = CURLCommand(request, redactor: redactor, revealingSecrets: false).command
        }
        return error
    }

    /// The context the chain starts with for `endpoint`.
    func context<Kind: EndpointKind, Response>(for endpoint: Endpoint<Kind, Response>) -> RequestContext {
        RequestContext(
            options: endpoint.options,
            attempt: 1,
            requiresAuthentication: Kind.requiresAuthentication,
            timeout: endpoint.timeout ?? defaults.timeout,
            clock: clock,
            call: CallState(observers: observers, redactor: redactor)
        )
    }
}
