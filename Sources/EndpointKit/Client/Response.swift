import Foundation

/// A decoded value with the response it came from: status, headers, the URL that answered after redirects,
/// how many attempts the call took and how long.
///
///     let page = try await client.exchange(for: .issues(in: repo), using: token)
///     let next = page.headers["Link"]   // the value alone would lose this
///     print(page.statusCode, page.attempts, page.timeToFirstByte)
///
/// ``EndpointClient/exchange(for:using:)`` returns one; ``EndpointClient/response(for:using:)`` returns its
/// ``value`` alone.
public struct Response<Value> {
    /// The decoded body.
    public var value: Value
    /// The final response's status code, e.g. `200`.
    public var statusCode: Int
    /// The final response's headers; repeated names are separate fields where the transport reports them so
    /// (Linux URLSession joins them with `, `).
    public var headers: HTTPHeaders
    /// The URL that gave the final response: the request's own, or the last redirect's.
    public var url: URL?
    /// How many attempts the call took: 1 unless ``Retry``, a validator or a token refresh sent it again.
    public var attempts: Int
    /// From the start of the call to the arrival of the final response's head, retries and redirects
    /// included.
    public var timeToFirstByte: Duration
    /// From the start of the call until the body was read and decoded.
    public var duration: Duration
    /// Where the final response came from: the network, the client's ``HTTPCache``, or the cache after a 304.
    public var source: ResponseSource

    /// Creates a response, e.g. in a test.
    public init(
        value: Value,
        statusCode: Int,
        headers: HTTPHeaders = HTTPHeaders(),
        url: URL? = nil,
        attempts: Int = 1,
        timeToFirstByte: Duration = .zero,
        duration: Duration = .zero,
        source: ResponseSource = .network
    ) {
        self.value = value
        self.statusCode = statusCode
        self.headers = headers
        self.url = url
        self.attempts = attempts
        self.timeToFirstByte = timeToFirstByte
        self.duration = duration
        self.source = source
    }

    /// The same response with its value transformed, e.g. to keep the headers of a page while mapping its items.
    public func map<NewValue>(_ transform: (Value) throws -> NewValue) rethrows -> Response<NewValue> {
        Response<NewValue>(
            value: try transform(value),
            statusCode: statusCode,
            headers: headers,
            url: url,
            attempts: attempts,
            timeToFirstByte: timeToFirstByte,
            duration: duration,
            source: source
        )
    }
}

extension Response: Sendable where Value: Sendable {}
