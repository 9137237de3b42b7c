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
///
/// ## The verbs
/// Seven, each named for what it returns, all taking the same endpoint and request data:
/// - ``response(for:using:)``: the decoded value;
/// - ``exchange(for:using:)``: the decoded value with its response (``Response``: status, headers, URL,
///   attempts, timings);
/// - ``publisher(for:using:)``: the value as a cold ``EndpointPublisher`` (any verb becomes one with
///   ``EndpointPublisher/init(_:)``);
/// - ``stream(for:using:)->StreamedResponse``: the body as it arrives: bytes and lines (``StreamedResponse``),
///   JSON Lines, or Server-Sent Events, as the endpoint's response type says;
/// - ``download(for:using:to:)``: the body written to a file, resumable;
/// - ``pages(for:using:next:)``: a paged list, page by page, each next page found by a ``NextPage`` rule;
/// - ``curlCommand(for:using:revealingSecrets:)``: the request as a `curl` command, sent nowhere.
public struct EndpointClient: Sendable {
    /// Where requests go.
    public var environment: ServerEnvironment
    /// Whether response bodies are unwrapped from an envelope; endpoints can override it.
    public let envelope: ResponseEnvelope
    /// Encoder, decoder, timeouts, size limit and headers every request starts from.
    public let defaults: RequestDefaults
    /// The engine every verb runs: middleware, attempts and their deadline, hops, the transport, validators.
    let pipeline: Pipeline
    /// Owns the client's background work (a `stale-while-revalidate` revalidation): cancelled when the last copy
    /// of the client goes.
    let background = TaskOwner()
    /// The decoder actually used: a copy of the defaults' decoder that also names the envelope key, so the
    /// caller's decoder is never mutated.
    let responseDecoder: JSONDecoder

    /// What sends requests.
    public var transport: any Transport { pipeline.transport }
    /// The steps every request passes through, outermost first; see ``Middleware`` for the recommended order.
    public var middleware: [any Middleware] { pipeline.middleware }
    /// Judges each final response, in order, before the 2xx status check.
    public var validators: [ResponseValidator] { pipeline.validators }
    /// How redirects are followed.
    public var redirectPolicy: RedirectPolicy { pipeline.redirectPolicy }
    /// What watches every call: attempts, redirect hops, progress and decoding. Middleware that are also
    /// ``ExchangeObserver``s (such as ``ExchangeLogging``) are added here.
    public var observers: [any ExchangeObserver] { pipeline.observers }
    /// The clock the client waits and times on: retry backoff, `Retry-After` waits, validator delays, stub delays,
    /// observer and ``Response`` timings, a model store's freshness and retention, and the deadlines the client
    /// enforces itself. A transport that enforces deadlines (``Transport/enforcesTimeout``) measures them on its
    /// own clock, and the ``HTTPCache`` judges freshness on the wall clock, as HTTP dates are.
    public var clock: any Clock<Duration> { pipeline.clock }
    /// The HTTP cache, or `nil` when the client has none.
    public var cache: HTTPCache? { pipeline.cache }
    /// The one list of secrets, from ``defaults``.
    var redactor: Redactor { pipeline.redactor }

    /// The client's redaction, plus the names `Kind` places credentials under.
    func redactor<Kind: EndpointKind>(for _: Kind.Type) -> Redactor {
        pipeline.redactor(adding: Kind.credentialNames)
    }

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - environment: Where requests go.
    ///   - transport: What sends them; a new ``URLSessionTransport`` unless given.
    ///   - envelope: Whether bodies are wrapped, e.g. ``ResponseEnvelope/networkResponse``; ``ResponseEnvelope/plain``
    ///     unless given.
    ///   - defaults: Encoder, decoder, timeouts, size limit and headers for every request.
    ///   - middleware: The steps every request passes through, outermost first.
    ///   - validators: Judges of every final response, run in order before the 2xx status check.
    ///   - redirectPolicy: How redirects are followed; ``RedirectPolicy/default`` unless given.
    ///   - observers: What watches every call, e.g. ``ExchangeLogging``.
    ///   - clock: The clock every wait and timing reads; tests pass one they move by hand (`TestClock` in
    ///     `EndpointKitTesting`).
    ///   - cache: Where GET responses are served from and stored: a new ``HTTPCache`` in memory, 16 MiB,
    ///     private to this client and its copies, unless given; `nil` for none. See ``HTTPCache``.
    public init(
        environment: ServerEnvironment,
        transport: any Transport = URLSessionTransport(),
        envelope: ResponseEnvelope = .plain,
        defaults: RequestDefaults = RequestDefaults(),
        middleware: [any Middleware] = [],
        validators: [ResponseValidator] = [],
        redirectPolicy: RedirectPolicy = .default,
        observers: [any ExchangeObserver] = [],
        clock: any Clock<Duration> = ContinuousClock(),
        cache: HTTPCache? = HTTPCache()
    ) {
        self.environment = environment
        self.envelope = envelope
        self.defaults = defaults
        pipeline = Pipeline(
            transport: transport,
            middleware: middleware,
            validators: validators,
            redirectPolicy: redirectPolicy,
            observers: observers + middleware.compactMap { $0 as? any ExchangeObserver },
            clock: clock,
            redactor: Redactor(defaults),
            cache: cache,
            background: background
        )
        let responseDecoder = defaults.decoder.copy()
        // Only a key other than the default is written: a decoder with user info costs more on every call, and
        // `NetworkResponse` reads a missing key as the default.
        if let key = envelope.key, key != NetworkResponse<EmptyResponse>.defaultKey {
            responseDecoder.userInfo[.networkResponseKey] = key
        }
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
        try await exchange(for: endpoint, using: requestData).value
    }

    /// Sends `endpoint`, whose kind needs no request data, and returns its decoded response.
    ///
    ///     let featured = try await client.response(for: .featuredItems)
    ///
    /// - Throws: ``EndpointError``, as ``response(for:using:)`` does.
    public func response<Kind: EndpointKind, Response: Decodable>(
        for endpoint: Endpoint<Kind, Response>
    ) async throws(EndpointError) -> Response where Kind.RequestData == Void {
        try await exchange(for: endpoint, using: ()).value
    }

    /// Sends `endpoint` with `requestData` and returns the decoded value with the response it came from: status,
    /// headers, final URL, attempts and timing.
    ///
    ///     let page = try await client.exchange(for: .repositories(of: "apple"), using: token)
    ///     let next = page.headers["Link"]
    ///
    /// Validation, decoding and errors are those of ``response(for:using:)``, which returns ``Response/value``
    /// alone. To read any status as it is, with its raw body, send the endpoint as `Data` with validation off:
    ///
    ///     var raw = Endpoint<EndpointKinds.Public, Item>.item(42).decoding(as: Data.self)
    ///     raw.options.isValidated = false
    ///     let response = try await client.exchange(for: raw)   // a 404 is a Response, not an error
    ///
    /// - Throws: ``EndpointError``, as ``response(for:using:)`` does.
    public func exchange<Kind: EndpointKind, Value: Decodable>(
        for endpoint: Endpoint<Kind, Value>,
        using requestData: Kind.RequestData
    ) async throws(EndpointError) -> EndpointKit.Response<Value> {
        let prepared = try endpoint.makeCall(in: environment, with: requestData, defaults: defaults)
        defer { prepared.removeTemporaryBodyFile() }
        let result = try await pipeline.run(
            prepared,
            body: .collect(upTo: prepared.bodyLimit),
            validating: endpoint.options.isValidated
        )
        let value = try decode(result, for: endpoint, request: prepared.request)
        let response = result.response
        return EndpointKit.Response(
            value: value,
            statusCode: response.statusCode,
            headers: response.headers,
            url: response.url,
            attempts: result.attempts,
            timeToFirstByte: result.call.timeToFirstByte,
            duration: result.call.elapsed,
            source: response.source
        )
    }

    /// Sends `endpoint`, whose kind needs no request data, and returns the decoded value with its response; see
    /// ``exchange(for:using:)``.
    ///
    /// - Throws: ``EndpointError``, as ``response(for:using:)`` does.
    public func exchange<Kind: EndpointKind, Value: Decodable>(
        for endpoint: Endpoint<Kind, Value>
    ) async throws(EndpointError) -> EndpointKit.Response<Value> where Kind.RequestData == Void {
        try await exchange(for: endpoint, using: ())
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
        let prepared = try endpoint.makeCall(in: environment, with: requestData, defaults: defaults)
        return CURLCommand(
            prepared.request,
            redactor: pipeline.redactor(for: prepared),
            revealingSecrets: revealingSecrets
        )
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

    /// The final body decoded as the endpoint's response type, reported to observers; a failure names the
    /// coding path, with the call's credentials scrubbed.
    private func decode<Kind: EndpointKind, Value: Decodable>(
        _ result: Pipeline.Result,
        for endpoint: Endpoint<Kind, Value>,
        request: TransportRequest
    ) throws(EndpointError) -> Value {
        let call = result.call
        do throws(EndpointError) {
            let value = try ResponseDecoding.decode(
                Value.self,
                from: result.response,
                envelope: endpoint.envelope ?? envelope,
                decoder: endpoint.decoder ?? responseDecoder,
                request: { call.redactor.summary(of: request) }
            )
            // Redacting the URL costs a parse: done only when an observer listens.
            call.emit(.decoded(request: call.redactor.summary(of: request), type: "\(Value.self)", error: nil))
            return value
        } catch {
            var error = pipeline.completing(error, for: request, call: call)
            error.attempts = result.attempts
            call.emit(.decoded(request: call.redactor.summary(of: request), type: "\(Value.self)", error: error))
            throw error
        }
    }
}
