import Foundation

/// A body read from an `InputStream` of unknown length.
///
/// It is sent with `Transfer-Encoding: chunked` and no `Content-Length`; some servers refuse that, so prefer
/// ``FileBody`` or ``DataBody`` when the length is known. `makeStream` is called once per call: a stream body is
/// never sent twice, so it is not retried, not replayed after a token refresh, and a 307/308 redirect that
/// needs it again fails with ``EndpointError/Kind/redirectRefused``.
///
///     let log = Data("a line\n".utf8)
///     let upload = Endpoint<EndpointKinds.Private, EmptyResponse>(
///         method: .post,
///         path: "logs",
///         body: StreamBody(contentType: "text/plain") { InputStream(data: log) }
///     )
public struct StreamBody: RequestBody {
    /// The `Content-Type` to send the stream with.
    public var contentType: String
    /// Makes a new stream for each attempt.
    public var makeStream: @Sendable () throws -> InputStream

    /// Creates a stream body.
    public init(
        contentType: String = "application/octet-stream",
        makeStream: @escaping @Sendable () throws -> InputStream
    ) {
        self.contentType = contentType
        self.makeStream = makeStream
    }

    /// The stream factory, called when the request is sent.
    public func makeContent(context: RequestBodyContext) throws -> RequestBodyContent {
        RequestBodyContent(contentType: contentType, source: .stream(makeStream))
    }
}
