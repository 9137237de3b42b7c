import Foundation

/// Raw bytes with the content type you name.
///
///     let upload = Endpoint<EndpointKinds.Private, EmptyResponse>(
///         method: .put,
///         path: "avatars/\(userID)",
///         body: DataBody(png, contentType: "image/png")
///     )
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
