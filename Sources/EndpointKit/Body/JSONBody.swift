import Foundation

/// A JSON body from any `Encodable` value, sent as `Content-Type: application/json`.
///
///     let create = Endpoint<EndpointKinds.Private, Item>(method: .post, path: "items", body: JSONBody(NewItem(name: "Tea")))
///
/// It uses the client's `JSONEncoder` unless you pass one.
public struct JSONBody<Value: Encodable & Sendable>: RequestBody {
    /// The value to encode.
    public var value: Value
    /// The encoder to use instead of the client's, or `nil` for the client's.
    public var encoder: JSONEncoder?

    /// Creates a JSON body.
    public init(_ value: Value, encoder: JSONEncoder? = nil) {
        self.value = value
        self.encoder = encoder
    }

    /// Encodes ``value`` as JSON.
    public func makeContent(context: RequestBodyContext) throws -> RequestBodyContent {
        let data = try (encoder ?? context.jsonEncoder).encode(value)
        return RequestBodyContent(contentType: "application/json", data: data)
    }
}
