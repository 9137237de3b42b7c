import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension EndpointClient {
    /// Sends `endpoint` and returns as soon as the response head arrives, with the body streaming in as the
    /// server sends it: as bytes (``StreamedResponse/body``), lines, or JSON Lines.
    ///
    ///     let stream = try await client.stream(for: .liveLog, using: token)
    ///     for try await line in stream.lines { print(line) }
    ///
    /// An endpoint whose response type is ``JSONLines`` streams its decoded elements instead
    /// (``stream(for:using:)->JSONLineSequence<Element>``), and one of ``ServerSentEvents`` its events
    /// (``stream(for:using:policy:)``).
    ///
    /// The whole pipeline applies to the head: credentials and refresh, retries before the first byte,
    /// redirects, validators (which see no body) and the status check; an error status's body is read, up to
    /// ``EndpointError/bodyLimit``, into the error. The total deadline covers the wait for the head; after it
    /// only the idle timeout (``RequestDefaults/idleTimeout``, or the endpoint's) bounds the stream. The response
    /// size limit bounds not the stream's length but what waits in memory when the reader falls behind: Linux
    /// URLSession cannot slow a server down, so past it the stream fails with
    /// ``EndpointError/Kind/responseTooLarge``. Leaving the loop, or cancelling the reading task, stops the
    /// transfer.
    ///
    /// - Throws: ``EndpointError``, as ``response(for:using:)`` does before the body.
    public func stream<Kind: EndpointKind, Response>(
        for endpoint: Endpoint<Kind, Response>,
        using requestData: Kind.RequestData
    ) async throws(EndpointError) -> StreamedResponse {
        let prepared = try endpoint.makeCall(in: environment, with: requestData, defaults: defaults)
        // A body file (multipart) is sent before the head arrives: it can go once this returns.
        defer { prepared.removeTemporaryBodyFile() }
        // Linux URLSession cannot slow a server down: what a slow reader leaves waiting is bounded by the limit.
        let result = try await pipeline.run(
            prepared,
            body: .stream(bufferLimit: prepared.bodyLimit),
            validating: endpoint.options.isValidated
        )
        var body = result.response.body
        body.request = result.call.redactor.summary(of: prepared.request)
        return StreamedResponse(
            statusCode: result.response.statusCode,
            headers: result.response.headers,
            url: result.response.url,
            attempts: result.attempts,
            body: body
        )
    }

    /// Streams an endpoint whose kind needs no request data; see ``stream(for:using:)->StreamedResponse``.
    public func stream<Kind: EndpointKind, Response>(
        for endpoint: Endpoint<Kind, Response>
    ) async throws(EndpointError) -> StreamedResponse where Kind.RequestData == Void {
        try await stream(for: endpoint, using: ())
    }

    /// Sends a JSON Lines endpoint and returns its elements, each decoded as it arrives, once the head has
    /// arrived: the byte stream read with ``StreamedResponse/jsonLines(of:decoder:)`` and the endpoint's decoder
    /// (or the client's).
    ///
    ///     for try await tick in try await client.stream(for: .ticks, using: token) { show(tick) }
    ///
    /// - Throws: ``EndpointError``, as the byte stream does; a line that does not decode fails the sequence
    ///   with ``EndpointError/Kind/decodingFailed``.
    public func stream<Kind: EndpointKind, Element>(
        for endpoint: Endpoint<Kind, JSONLines<Element>>,
        using requestData: Kind.RequestData
    ) async throws(EndpointError) -> JSONLineSequence<Element> {
        let stream: StreamedResponse = try await stream(for: endpoint, using: requestData)
        return stream.jsonLines(of: Element.self, decoder: endpoint.decoder ?? defaults.decoder)
    }

    /// The JSON Lines of an endpoint whose kind needs no request data.
    public func stream<Kind: EndpointKind, Element>(
        for endpoint: Endpoint<Kind, JSONLines<Element>>
    ) async throws(EndpointError) -> JSONLineSequence<Element> where Kind.RequestData == Void {
        try await stream(for: endpoint, using: ())
    }

    /// The endpoint's Server-Sent Events, reconnecting as `policy` allows; see ``ServerSentEvents``.
    ///
    ///     extension Endpoint where Kind == EndpointKinds.Private, Response == ServerSentEvents {
    ///         static var notifications: Self { Endpoint(path: "notifications") }
    ///     }
    ///     for try await event in try await client.stream(for: .notifications, using: token) {
    ///         print(event.type, event.data)
    ///     }
    ///
    /// The endpoint declares ``ServerSentEvents`` as its response type, so an endpoint of another kind of body
    /// cannot be read as events by mistake.
    ///
    /// The request is built here, so an endpoint that cannot be sent fails at once; the first connection is made
    /// when the loop starts. Each connection is a byte stream with `Accept: text/event-stream` and, after the
    /// first, `Last-Event-ID`: the whole pipeline applies to each, and only the idle timeout bounds an open
    /// stream.
    ///
    /// - Throws: ``EndpointError/Kind/invalidRequest`` or ``EndpointError/Kind/encodingFailed`` when the request
    ///   cannot be built; the sequence throws what each connection does.
    public func stream<Kind: EndpointKind>(
        for endpoint: Endpoint<Kind, ServerSentEvents>,
        using requestData: Kind.RequestData,
        policy: ServerSentEvents.ReconnectPolicy
    ) async throws(EndpointError) -> ServerSentEvents {
        var endpoint = endpoint
        endpoint.headers[.accept] = "text/event-stream"
        if !endpoint.headers.contains(.cacheControl) { endpoint.headers[.cacheControl] = "no-cache" }
        // Built once now, so that a request that cannot be sent fails here rather than at the first event.
        try endpoint.makeCall(in: environment, with: requestData, defaults: defaults).removeTemporaryBodyFile()
        let base = endpoint
        return ServerSentEvents(
            connect: { lastEventID throws(EndpointError) -> StreamedResponse in
                var endpoint = base
                if let lastEventID { endpoint.headers["Last-Event-ID"] = lastEventID }
                return try await stream(for: endpoint, using: requestData)
            },
            policy: policy,
            clock: clock
        )
    }

    /// The endpoint's Server-Sent Events with the default ``ServerSentEvents/ReconnectPolicy``; see
    /// ``stream(for:using:policy:)``.
    public func stream<Kind: EndpointKind>(
        for endpoint: Endpoint<Kind, ServerSentEvents>,
        using requestData: Kind.RequestData
    ) async throws(EndpointError) -> ServerSentEvents {
        try await stream(for: endpoint, using: requestData, policy: ServerSentEvents.ReconnectPolicy())
    }

    /// Server-Sent Events of an endpoint whose kind needs no request data; see ``stream(for:using:policy:)``.
    public func stream<Kind: EndpointKind>(
        for endpoint: Endpoint<Kind, ServerSentEvents>,
        policy: ServerSentEvents.ReconnectPolicy
    ) async throws(EndpointError) -> ServerSentEvents where Kind.RequestData == Void {
        try await stream(for: endpoint, using: (), policy: policy)
    }

    /// Server-Sent Events of an endpoint whose kind needs no request data, with the default reconnect policy.
    public func stream<Kind: EndpointKind>(
        for endpoint: Endpoint<Kind, ServerSentEvents>
    ) async throws(EndpointError) -> ServerSentEvents where Kind.RequestData == Void {
        try await stream(for: endpoint, using: (), policy: ServerSentEvents.ReconnectPolicy())
    }
}
