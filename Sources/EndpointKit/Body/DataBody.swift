import Foundation

/// Raw bytes with the content type you name.
///
///     Endpoint(method: .put, path: "avatars/\(userID)", body: DataBody(png, contentType: "image/png"))
public struct DataBody: RequestBody {
    /// The bytes to send.
    public var data: Data
    /// The `Content-Type` to send them with.
    public var contentType: String

    /// Creates a body of raw bytes.
    public init(_ data: Data, contentType: String = "application/octet-stream") {
        self.data = data
        self.contentType = contentType
    }

    /// The bytes as they are.
    public func makeContent(context: RequestBodyContext) throws -> RequestBodyContent {
        RequestBodyContent(contentType: contentType, data: data)
    }
}

/// The contents of a local file, streamed from disk when sent instead of read into memory.
///
///     Endpoint(method: .put, path: "backups/latest", body: FileBody(archiveURL, contentType: "application/zip"))
public struct FileBody: RequestBody {
    /// The file to send.
    public var fileURL: URL
    /// The `Content-Type` to send it with.
    public var contentType: String

    /// Creates a body from a file; a missing file fails the call with ``EndpointError/Kind/encodingFailed``.
    public init(_ fileURL: URL, contentType: String = "application/octet-stream") {
        self.fileURL = fileURL
        self.contentType = contentType
    }

    /// Checks the file is readable and streams it when sent.
    public func makeContent(context: RequestBodyContext) throws -> RequestBodyContent {
        guard FileManager.default.isReadableFile(atPath: fileURL.path) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: fileURL.path])
        }
        return RequestBodyContent(contentType: contentType, source: .file(fileURL))
    }
}

/// A body read from an `InputStream` of unknown length.
///
/// It is sent with `Transfer-Encoding: chunked` and no `Content-Length`; some servers refuse that, so prefer
/// ``FileBody`` or ``DataBody`` when the length is known. `makeStream` is called once per attempt.
///
///     Endpoint(method: .post, path: "logs", body: StreamBody(contentType: "text/plain") { InputStream(data: log) })
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
