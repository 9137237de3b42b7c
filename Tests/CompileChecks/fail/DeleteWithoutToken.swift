// expected-error: requires the types 'AccessToken' and '(Void|\(\))' be equivalent
import EndpointKit

extension Endpoint where Kind == EndpointKinds.Private, Response == EmptyResponse {
    static func removeItem(_ id: Item.ID) -> Self { Endpoint(method: .delete, path: "items/\(id)") }
}

func deleteWithoutToken() async throws {
    _ = try await client.response(for: .removeItem(1))
}
