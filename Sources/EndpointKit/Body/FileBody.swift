import Foundation

/// The contents of a local file, streamed from disk when sent instead of read into memory.
///
///     let backup = Endpoint<EndpointKinds.Private, EmptyResponse>(
///         method: .put,
///         path: "backups/latest",
///         body: FileBody(archiveURL, contentType: "application/zip")
///     )
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
