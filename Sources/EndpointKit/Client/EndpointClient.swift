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
    public init(
        environment: ServerEnvironment,
        transport: any Transport = URLSessionTransport(),
        envelope: ResponseEnvelope = .plain,
        defaults: RequestDefaults = RequestDefaults()
    ) {
        self.environment = environment
        self.transport = transport
        self.envelope = envelope
        self.defaults = defaults
        let responseDecoder = defaults.decoder.copy()
        if let key = envelope.key { responseDecoder.userInfo[.networkResponseKey] = key }
        self.responseDecoder = responseDecoder
    }

    /// Sends `endpoint`, prepared by its kind with `requestData`, and returns its decoded response.
    ///
    ///     let results = try await client.response(for: .search(for: "tea"), using: AccessToken("s3cret"))
    ///
    /// - Throws: ``EndpointError``: ``EndpointError/Kind/invalidRequest`` or ``EndpointError/Kind/encodingFailed``
    ///   before sending; ``EndpointError/Kind/transportFailed``, ``EndpointError/Kind/timedOut`` or
    ///   ``EndpointError/Kind/cancelled`` while sending; ``EndpointError/Kind/unacceptableStatus`` outside
    ///   200–299; ``EndpointError/Kind/decodingFailed``, with the coding path, when the body does not match.
    public func response<Kind: EndpointKind, Response: Decodable>(
        for endpoint: Endpoint<Kind, Response>,
        using requestData: Kind.RequestData
    ) async throws(EndpointError) -> Response {
        let request = try endpoint.makeTransportRequest(in: environment, with: requestData, defaults: defaults)
        defer { request.removeTemporaryBodyFile() }
        do throws(EndpointError) {
            let response = try await send(request)
            return try ResponseDecoding.decode(
                Response.self,
                from: response,
                envelope: endpoint.envelope ?? envelope,
                decoder: endpoint.decoder ?? responseDecoder,
                request: RequestSummary(request.urlRequest)
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

    /// Sends `endpoint` and returns the raw response without checking its status or decoding it.
    ///
    /// - Throws: ``EndpointError`` when the request cannot be built or no response arrives.
    public func rawResponse<Kind: EndpointKind, Response>(
        for endpoint: Endpoint<Kind, Response>,
        using requestData: Kind.RequestData
    ) async throws(EndpointError) -> HTTPResponse {
        let request = try endpoint.makeTransportRequest(in: environment, with: requestData, defaults: defaults)
        defer { request.removeTemporaryBodyFile() }
        do throws(EndpointError) {
            return try await transmit(request)
        } catch {
            throw attachingCURLCommand(to: error, for: request)
        }
    }

    /// The `curl` command that sends the same request as `endpoint` with `requestData`.
    ///
    ///     print(try client.curlCommand(for: .search(for: "tea"), using: token))
    ///
    /// Secrets are redacted unless `revealingSecrets` is `true`; see ``CURLCommand``.
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

    /// Sends a prepared request and checks its status.
    func send(_ request: TransportRequest) async throws(EndpointError) -> HTTPResponse {
        let response = try await transmit(request)
        guard response.isSuccess else {
            throw EndpointError(
                .unacceptableStatus,
                "the server answered \(response.statusCode)",
                request: RequestSummary(request.urlRequest),
                statusCode: response.statusCode,
                responseHeaders: response.headers,
                body: response.body
            )
        }
        return response
    }

    /// Hands a prepared request to the transport and turns whatever it throws into an ``EndpointError``.
    func transmit(_ request: TransportRequest) async throws(EndpointError) -> HTTPResponse {
        let summary = RequestSummary(request.urlRequest)
        if Task.isCancelled {
            throw EndpointError(.cancelled, "the task was cancelled before sending", request: summary)
        }
        do {
            return try await transport.send(request)
        } catch {
            throw EndpointError.transportFailure(error, request: summary)
        }
    }
}
