// Write endpoints read like reads: a private POST, a private DELETE, and a public form login. Must type-check.
import EndpointKit
import Foundation

struct NewItem: Codable, Sendable { var name: String }
struct Session: Decodable, Sendable { var accessToken: String }

extension Endpoint where Kind == EndpointKinds.Private, Response == Item {
    static func createItem(_ new: NewItem) -> Self { Endpoint(method: .post, path: "items", body: JSONBody(new)) }
}
extension Endpoint where Kind == EndpointKinds.Private, Response == EmptyResponse {
    static func deleteItem(_ id: Item.ID) -> Self { Endpoint(method: .delete, path: "items/\(id)") }
}
extension Endpoint where Kind == EndpointKinds.Public, Response == Session {
    static func login(user: String, password: String) -> Self {
        Endpoint(method: .post, path: "login", body: FormBody(["username": user, "password": password]))
    }
}

func writes() async throws {
    let session = try await client.response(for: .login(user: "ann", password: "pw"))
    let token = AccessToken(session.accessToken)
    let item = try await client.response(for: .createItem(NewItem(name: "Tea")), using: token)
    _ = try await client.response(for: .deleteItem(item.id), using: token)
}
