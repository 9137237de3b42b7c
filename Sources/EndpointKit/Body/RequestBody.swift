import Foundation

/// Something that can be sent as a request body; conform your own types to add body kinds.
///
///     struct CSVBody: RequestBody {
///         var rows: [[String]]
///         func makeContent(context: RequestBodyContext) throws -> RequestBodyContent {
///             RequestBodyContent(contentType: "text/csv", data: Data(rows.map { $0.joined(separator: ",") }
///                 .joined(separator: "\n").utf8))
///         }
///     }
public protocol RequestBody: Sendable {
    /// Encodes the body. Thrown errors surface as ``EndpointError/Kind/encodingFailed``.
    func makeContent(context: RequestBodyContext) throws -> RequestBodyContent
}

/// What a ``RequestBody`` may use while encoding: the client's settings.
public struct RequestBodyContext: Sendable {
    /// The client's JSON encoder; bodies that carry their own encoder use that instead.
    public var jsonEncoder: JSONEncoder

    /// Creates a context.
    public init(jsonEncoder: JSONEncoder) { self.jsonEncoder = jsonEncoder }
}

/// An encoded body: where its bytes come from and the `Content-Type` that describes them.
public struct RequestBodyContent: Sendable {
    /// Where the bytes of a body come from.
    public enum Source: Sendable {
        /// Bytes in memory.
        case data(Data)
        /// The contents of a local file, streamed from disk when sent rather than read into memory.
        case file(URL)
    }

    /// The `Content-Type` header value, or `nil` to send none.
    public var contentType: String?
    /// The body's bytes.
    public var source: Source

    /// Creates content from bytes in memory.
    public init(contentType: String?, data: Data) {
        self.contentType = contentType
        self.source = .data(data)
    }

    /// Creates content streamed from the file at `fileURL` when sent.
    public init(contentType: String?, fileURL: URL) {
        self.contentType = contentType
        self.source = .file(fileURL)
    }
}
