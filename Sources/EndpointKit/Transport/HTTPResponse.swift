import Foundation

/// A raw HTTP response: status, headers and the whole body.
public struct HTTPResponse: Sendable {
    /// The status code, e.g. `200`.
    public var statusCode: Int
    /// The response headers. Linux URLSession joins repeated headers with `, `.
    public var headers: HTTPHeaders
    /// The body, already decompressed by the transport when it was sent compressed.
    public var body: Data
    /// The URL that answered, after any redirects, or `nil` when unknown.
    public var url: URL?
    /// Which attempt produced this response, from 1; the client sets it from ``RequestContext/attempt``.
    public var attempt = 1

    /// Creates a response.
    public init(statusCode: Int, headers: HTTPHeaders = HTTPHeaders(), body: Data = Data(), url: URL? = nil) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.url = url
    }

    /// Whether the status is in 200–299.
    public var isSuccess: Bool { (200..<300).contains(statusCode) }
}
