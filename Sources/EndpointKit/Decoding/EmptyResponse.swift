/// The response of an endpoint whose body you do not read, such as a 204 or most `DELETE`s.
///
///     extension Endpoint where Kind == EndpointKinds.Private, Response == EmptyResponse {
///         static func deleteItem(_ id: Item.ID) -> Self { Endpoint(method: .delete, path: "items/\(id)") }
///     }
///
/// Any body, empty or not, decodes to it; the status is still checked.
public struct EmptyResponse: Decodable, Sendable, Hashable {
    /// Creates an empty response.
    public init() {}

    /// Decodes from any body, ignoring its content.
    public init(from decoder: any Decoder) throws {}
}
