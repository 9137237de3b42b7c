import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension EndpointClient {
    /// Sends `endpoint` and returns as soon as the response head arrives, with the body streaming in as the
    /// server sends it: as bytes (``StreamedResponse/body``), lines, or JSON Lines.
    ///
    ///     let stream = try await client.bytes(for: .liveEvents, using: token)
    ///     for try await line in stream.lines { print(line) }
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
    public func bytes<Kind: EndpointKind, Response>(
        for endpoint: Endpoint<Kind, Response>,
        using requestData: Kind.RequestData
    ) async throws(EndpointError) -> StreamedResponse {
        var request = try endpoint.makeTransportRequest(in: environment, with: requestData, defaults: defaults)
        // Linux URLSession cannot slow a server down: what a slow reader leaves waiting is bounded by the limit.
        request.streamBufferLimit = endpoint.maximumResponseSize ?? defaults.maximumResponseSize
        // A body file (multipart) is sent before the head arrives: it can go once this returns.
        defer { request.removeTemporaryBodyFile() }
        let context = context(for: endpoint)
        do throws(EndpointError) {
            let response = try await execute(request, context: context, bodyLimit: nil, validating: true)
            var body = response.body
            body.request = redactor.summary(of: request)
            return StreamedResponse(
                statusCode: response.statusCode,
                headers: response.headers,
                url: response.url,
                attempts: max(context.call?.attemptCount ?? 1, 1),
                body: body
            )
        } catch {
            throw attachingCURLCommand(to: error, for: request)
        }
    }

    /// Streams an endpoint whose kind needs no request data; see ``bytes(for:using:)``.
    public func bytes<Kind: EndpointKind, Response>(
        for endpoint: Endpoint<Kind, Response>
    ) async throws(EndpointError) -> StreamedResponse where Kind.RequestData == Void {
        try await bytes(for: endpoint, using: ())
    }
}

extension EndpointClient {
    /// The endpoint's Server-Sent Events, reconnecting as `policy` allows; see ``ServerSentEvents``.
    ///
    ///     extension Endpoint where Kind == EndpointKinds.Private, Response == ServerSentEvents {
    ///         static var notifications: Self { Endpoint(path: "notifications") }
    ///     }
    ///     for try await event in client.events(for: .notifications, using: token) { print(event.type, event.data) }
    ///
    /// The endpoint declares ``ServerSentEvents`` as its response type, so an endpoint of another kind of body
    /// cannot be read as events by mistake.
    ///
    /// Each connection is a ``bytes(for:using:)`` call with `Accept: text/event-stream` and, after the first,
    /// `Last-Event-ID`: the whole pipeline applies to each, and only the idle timeout bounds an open stream.
    public func events<Kind: EndpointKind>(
        for endpoint: Endpoint<Kind, ServerSentEvents>,
        using requestData: Kind.RequestData,
        policy: ServerSentEvents.ReconnectPolicy = ServerSentEvents.ReconnectPolicy()
    ) -> ServerSentEvents {
        var endpoint = endpoint
        endpoint.headers[.accept] = "text/event-stream"
        if !endpoint.headers.contains(.cacheControl) { endpoint.headers[.cacheControl] = "no-cache" }
        let base = endpoint
        return ServerSentEvents(
            connect: { lastEventID throws(EndpointError) in
                var endpoint = base
                if let lastEventID { endpoint.headers["Last-Event-ID"] = lastEventID }
                return try await bytes(for: endpoint, using: requestData)
            },
            policy: policy,
            clock: clock
        )
    }

    /// Server-Sent Events of an endpoint whose kind needs no request data; see ``events(for:using:policy:)``.
    public func events<Kind: EndpointKind>(
        for endpoint: Endpoint<Kind, ServerSentEvents>,
        policy: ServerSentEvents.ReconnectPolicy = ServerSentEvents.ReconnectPolicy()
    ) -> ServerSentEvents where Kind.RequestData == Void {
        events(for: endpoint, using: (), policy: policy)
    }
}
