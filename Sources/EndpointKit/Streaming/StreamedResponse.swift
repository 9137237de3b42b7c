import Foundation

/// A response whose head has arrived and whose body streams in as the server sends it: bytes, lines, or JSON
/// Lines decoded one by one.
///
///     let stream = try await client.stream(for: .events(since: cursor), using: token)
///     for try await event in stream.jsonLines(of: Event.self) { show(event) }
///
/// The body can be read once. Leaving the loop, or cancelling the task that reads, stops the transfer.
public struct StreamedResponse: Sendable {
    /// The status code, e.g. `200`.
    public var statusCode: Int
    /// The response headers.
    public var headers: HTTPHeaders
    /// The URL that answered, after redirects.
    public var url: URL?
    /// How many attempts it took to get this head.
    public var attempts: Int
    /// The body, as chunks of bytes as they arrive.
    public var body: ResponseBody

    /// The body as lines of UTF-8 text, without their `\n` or `\r\n`; see ``LineSequence``.
    public var lines: LineSequence { LineSequence(body) }

    /// The body as JSON Lines (one JSON value per line), each decoded as `Element` as it arrives; empty lines
    /// are skipped. A line that does not decode fails with ``EndpointError/Kind/decodingFailed``.
    public func jsonLines<Element: Decodable>(
        of type: Element.Type,
        decoder: JSONDecoder = JSONDecoder()
    ) -> JSONLineSequence<Element> {
        JSONLineSequence(lines: lines, decoder: decoder)
    }
}
