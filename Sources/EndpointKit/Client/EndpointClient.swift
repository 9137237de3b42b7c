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
    /// The clock deadlines and validator delays run on.
    let clock: any Clock<Duration>

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
    ///   - clock: The clock that times deadlines and validator delays.
    public init(
        environment: ServerEnvironment,
        transport: any Transport = URLSessionTransport(),
        envelope: ResponseEnvelope = .plain,
        defaults: RequestDefaults = RequestDefaults(),
        middleware: [any Middleware] = [],
        validators: [ResponseValidator] = [],
        redirectPolicy: RedirectPolicy = .default,
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.environment = environment
        self.transport = transport
        self.envelope = envelope
        self.defaults = defaults
        self.middleware = middleware
        self.validators = validators
        self.redirectPolicy = redirectPolicy
        self.clock = clock
        let responseDecoder = defaults.decoder.copy()
        if let key = envelope.key { responseDecoder.userInfo[.networkResponseKey] = key }
        self.responseDecoder = responseDecoder
    }

    /// Sends `endpoint`, prepared by its kind with `requestData`, and returns its decoded response.
    ///
    ///     let results = try await client.response(for: .search(for: "tea"), using: AccessToken("s3cret"))
    ///
    /// - Throws: ``EndpointError``: ``EndpointError/Kind/invalidRequest`` or ``EndpointError/Kind/encodingFailed``
    ///   before sending; ``EndpointError/Kind/transportFailed``, ``EndpointError/Kind/timedOut``,
    ///   ``EndpointError/Kind/cancelled``, ``EndpointError/Kind/responseTooLarge``,
    ///   ``EndpointError/Kind/redirectRefused``, ``EndpointError/Kind/tooManyRedirects`` or
    ///   ``EndpointError/Kind/authenticationFailed`` while sending; ``EndpointError/Kind/serverError`` from a
    ///   validator; ``EndpointError/Kind/unacceptableStatus`` outside 200–299;
    ///   ``EndpointError/Kind/decodingFailed``, with the coding path, when the body does not match.
    public func response<Kind: EndpointKind, Response: Decodable>(
        for endpoint: Endpoint<Kind, Response>,
        using requestData: Kind.RequestData
    ) async throws(EndpointError) -> Response {
        let request = try endpoint.makeTransportRequest(in: environment, with: requestData, defaults: defaults)
        defer { request.removeTemporaryBodyFile() }
        do throws(EndpointError) {
            let response = try await execute(request, context: context(for: endpoint), validating: true)
            return try ResponseDecoding.decode(
                Response.self,
                from: response,
                envelope: endpoint.envelope ?? envelope,
                decoder: endpoint.decoder ?? responseDecoder,
                request: request.urlRequest
            )
        } catch {
            throw attachingCURLCommand(to: error, for: request)
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

    /// Sends `endpoint` through the middleware and redirects, and returns the raw response without validating
    /// or decoding it.
    ///
    /// - Throws: ``EndpointError`` when the request cannot be built or no response arrives.
    public func rawResponse<Kind: EndpointKind, Response>(
        for endpoint: Endpoint<Kind, Response>,
        using requestData: Kind.RequestData
    ) async throws(EndpointError) -> HTTPResponse {
        let request = try endpoint.makeTransportRequest(in: environment, with: requestData, defaults: defaults)
        defer { request.removeTemporaryBodyFile() }
        do throws(EndpointError) {
            return try await execute(request, context: context(for: endpoint), validating: false)
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
        return CURLCommand(request, sensitiveHeaders: defaults.sensitiveHeaders, revealingSecrets: revealingSecrets)
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
    private func attachingCURLCommand(to error: EndpointError, for request: TransportRequest) -> EndpointError {
        var error = error
        if error.curlCommand == nil {
            error.curlCommand = CURLCommand(request, sensitiveHeaders: defaults.sensitiveHeaders).command
        }
        return error
    }

    /// The context the chain starts with for `endpoint`.
    private func context<Kind: EndpointKind, Response>(for endpoint: Endpoint<Kind, Response>) -> RequestContext {
        RequestContext(
            options: endpoint.options,
            attempt: 1,
            requiresAuthentication: Kind.requiresAuthentication,
            timeout: endpoint.timeout ?? defaults.timeout
        )
    }
}
