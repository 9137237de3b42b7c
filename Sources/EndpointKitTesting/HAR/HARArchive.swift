import Foundation

/// A HAR 1.2 archive (<http://www.softwareishard.com/blog/har-12-spec/>), the JSON that browser developer tools,
/// mitmproxy, Charles and Proxyman read and write: what ``HARTransport`` records and replays.
///
/// Fields this package adds start with `_`, as the format allows.
public struct HARArchive: Codable, Sendable, Equatable {
    /// The archive's one root object.
    public var log: Log

    /// An archive made by EndpointKit.
    public init(entries: [Entry] = [], failures: [Failure] = []) {
        log = Log(
            version: "1.2",
            creator: Creator(name: "EndpointKit", version: "0.14.0"),
            entries: entries,
            _failures: failures.isEmpty ? nil : failures
        )
    }

    /// Reads an archive from `file`.
    public init(contentsOf file: URL) throws {
        self = try JSONDecoder().decode(HARArchive.self, from: Data(contentsOf: file))
    }

    /// Writes the archive to `file` atomically (a whole new file, renamed over the old one), indented.
    public func write(to file: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(self).write(to: file, options: .atomic)
    }

    /// The `log` object.
    public struct Log: Codable, Sendable, Equatable {
        /// `1.2`.
        public var version: String
        /// Who made the archive.
        public var creator: Creator
        /// The exchanges that got a response.
        public var entries: [Entry]
        /// Requests that got no response (refused, timed out, cancelled before the head): this package's field,
        /// outside `entries`, which other readers expect to hold responses.
        public var _failures: [Failure]?
    }

    /// A request that got no response, and how it failed.
    public struct Failure: Codable, Sendable, Equatable {
        /// When the request started.
        public var startedDateTime: String
        /// Milliseconds until it failed.
        public var time: Double
        /// The request, redacted.
        public var request: Request
        /// The ``EndpointError/Kind`` it failed with, e.g. `transportFailed`, `timedOut`, `cancelled`.
        public var error: String
    }

    /// Who made the archive.
    public struct Creator: Codable, Sendable, Equatable {
        /// The tool's name.
        public var name: String
        /// The tool's version.
        public var version: String
    }

    /// One exchange.
    public struct Entry: Codable, Sendable, Equatable {
        /// When the request started, ISO 8601 with milliseconds.
        public var startedDateTime: String
        /// Milliseconds from the start to the end of the body.
        public var time: Double
        /// The request, redacted.
        public var request: Request
        /// The response, redacted.
        public var response: Response
        /// Not used: always empty.
        public var cache: [String: String] = [:]
        /// How long each phase took.
        public var timings: Timings
        /// Notes: a body left out for its size, a body not read to its end.
        public var comment: String?
    }

    /// A name and a value: a header, a query item, a form parameter.
    public struct NameValue: Codable, Sendable, Equatable {
        /// The name.
        public var name: String
        /// The value; `<redacted>` for a secret.
        public var value: String
    }

    /// A request as sent, secrets redacted.
    public struct Request: Codable, Sendable, Equatable {
        /// The method, e.g. `GET`.
        public var method: String
        /// The absolute URL, secret query values redacted.
        public var url: String
        /// Transports do not say which version they spoke: `HTTP/1.1` is written.
        public var httpVersion = "HTTP/1.1"
        /// Not parsed: always empty (the `Cookie` header is redacted).
        public var cookies: [NameValue] = []
        /// The headers as sent, secret values redacted.
        public var headers: [NameValue]
        /// The query items, decoded, secret values redacted.
        public var queryString: [NameValue]
        /// The body, or `nil` for none.
        public var postData: PostData?
        /// Not known: -1.
        public var headersSize = -1
        /// The body's length in bytes, 0 for none, -1 when unknown.
        public var bodySize: Int
    }

    /// A request body.
    public struct PostData: Codable, Sendable, Equatable {
        /// The body's `Content-Type`.
        public var mimeType: String
        /// The body as text; base64 when `_encoding` says so; absent when it was over the recording's limit.
        public var text: String?
        /// `base64` for a body that is not UTF-8 (this package's field: HAR 1.2 gives request bodies no encoding).
        public var _encoding: String?
        /// A note: a body left out for its size.
        public var comment: String?
    }

    /// A response as received, secrets redacted.
    public struct Response: Codable, Sendable, Equatable {
        /// The status code.
        public var status: Int
        /// The status's reason phrase.
        public var statusText: String
        /// Transports do not say which version they spoke: `HTTP/1.1` is written.
        public var httpVersion = "HTTP/1.1"
        /// Not parsed: always empty (`Set-Cookie` is redacted).
        public var cookies: [NameValue] = []
        /// The headers as received, secret values redacted.
        public var headers: [NameValue]
        /// The body.
        public var content: Content
        /// The `Location` header, or empty.
        public var redirectURL: String
        /// Not known: -1.
        public var headersSize = -1
        /// The body's length in bytes as received.
        public var bodySize: Int
    }

    /// A response body.
    public struct Content: Codable, Sendable, Equatable {
        /// The body's length in bytes, as received.
        public var size: Int
        /// The body's `Content-Type`, or `x-unknown`.
        public var mimeType: String
        /// The body; base64 when `encoding` says so; absent when it was over the recording's limit.
        public var text: String?
        /// `base64` for a body that is not UTF-8 text.
        public var encoding: String?
        /// A note: a body left out for its size, or not read to its end.
        public var comment: String?
        /// The sizes of the chunks the body arrived in, so that a replay streams it as it came (this package's
        /// field; at most 4,096 are kept, the rest of the body replays in one chunk).
        public var _chunks: [Int]?
    }

    /// How long each phase took, in milliseconds; -1 for a phase the transport does not report.
    public struct Timings: Codable, Sendable, Equatable {
        /// Waiting for a connection: not reported, -1.
        public var blocked = -1.0
        /// Name resolution: not reported, -1.
        public var dns = -1.0
        /// Connecting: not reported, -1.
        public var connect = -1.0
        /// Sending the request: 0, as it is counted in `wait`.
        public var send = 0.0
        /// From sending to the response head.
        public var wait: Double
        /// From the head to the end of the body.
        public var receive: Double
        /// The TLS handshake: not reported, -1.
        public var ssl = -1.0
    }
}
