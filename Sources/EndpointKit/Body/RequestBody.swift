import Foundation

/// Something that can be sent as a request body; conform your own types to add body kinds.
///
///     struct CSVBody: RequestBody {
///         var rows: [[String]]
///         func makeContent(context: RequestBodyContext) throws -> RequestBodyContent {
///             let text = rows.map { $0.joined(separator: ",") }.joined(separator: "\n")
///             return RequestBodyContent(contentType: "text/csv", data: Data(text.utf8))
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
        /// Bytes in memory, sent with a `Content-Length`.
        case data(Data)
        /// The contents of a local file, streamed from disk when sent (with a `Content-Length`) rather than
        /// read into memory.
        case file(URL)
        /// Like ``file(_:)``, for a file made only for this request: EndpointKit deletes it once the call is over.
        case temporaryFile(URL)
        /// A stream of unknown length, made afresh for every attempt. It is sent with
        /// `Transfer-Encoding: chunked`, which some servers refuse; prefer ``file(_:)`` when you can.
        case stream(@Sendable () throws -> InputStream)
    }

    /// The `Content-Type` header value, or `nil` to send none.
    public var contentType: String?
    /// Where the body's bytes come from.
    public var source: Source

    /// Creates content from bytes in memory.
    public init(contentType: String?, data: Data) {
        self.init(contentType: contentType, source: .data(data))
    }

    /// Creates content from any source.
    public init(contentType: String?, source: Source) {
        self.contentType = contentType
        self.source = source
    }
}
