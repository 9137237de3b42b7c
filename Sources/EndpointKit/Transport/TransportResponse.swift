import Foundation

/// A response as transports return it and middleware see it: the head (status, headers, final URL) and a
/// body that is either in memory or still streaming from the network.
///
/// Inside ``EndpointClient/response(for:using:)`` every step after the transport sees a body already read in
/// full (up to ``RequestDefaults/maximumResponseSize``), so a validator or a middleware can read
/// ``ResponseBody/bufferedData`` freely.
public struct TransportResponse: Sendable {
    /// The status code, e.g. `200`.
    public var statusCode: Int
    /// The response headers; repeated names are kept as separate fields where the transport reports them so.
    public var headers: HTTPHeaders
    /// The URL that answered this hop, or `nil` when the transport does not say.
    public var url: URL?
    /// The body.
    public var body: ResponseBody
    /// When the head arrived, if the transport knows; otherwise the client takes the moment
    /// ``Transport/send(_:options:)`` returned. A transport that collects the body before returning should set
    /// it, so that ``Response/timeToFirstByte`` does not include the body.
    public var headReceivedAt: ContinuousClock.Instant?
    /// The HTTP version that carried the response, as OpenTelemetry's `network.protocol.version` writes it
    /// (`"1.1"`, `"2"`), when the transport knows it; `nil` otherwise (URLSession on Linux does not say).
    public var protocolVersion: String?
    /// Where the response came from: the transport, or the client's cache.
    var source = ResponseSource.network

    /// Creates a response.
    public init(
        statusCode: Int,
        headers: HTTPHeaders = HTTPHeaders(),
        url: URL? = nil,
        body: ResponseBody = ResponseBody()
    ) {
        self.statusCode = statusCode
        self.headers = headers
        self.url = url
        self.body = body
    }

    /// Creates a response whose body is `data`, in memory.
    public init(statusCode: Int, headers: HTTPHeaders = HTTPHeaders(), url: URL? = nil, data: Data) {
        self.init(statusCode: statusCode, headers: headers, url: url, body: ResponseBody(data))
    }

    /// Whether the status is in 200–299.
    public var isSuccess: Bool { (200..<300).contains(statusCode) }

    /// The body's bytes when they are in memory, or empty data while it is still streamed.
    var bufferedBody: Data { body.bufferedData ?? Data() }
}
