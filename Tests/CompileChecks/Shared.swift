// Declarations shared by every compile check: the call sites, a user-written API-key kind and an
// admin kind that needs its own token type. Each check file is type-checked together with this one.
import EndpointKit
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct Item: Codable, Sendable, Identifiable, Equatable {
    let id: Int
    var name: String
}
struct SearchResults: Codable, Sendable { var items: [Item] }

extension Endpoint where Kind == EndpointKinds.Public, Response == [Item] {
    static var featuredItems: Self { Endpoint(path: "featured") }
}
extension Endpoint where Kind == EndpointKinds.Public, Response == Item {
    static func item(_ id: Item.ID) -> Self { Endpoint(path: "items/\(id)") }
}
extension Endpoint where Kind == EndpointKinds.Private, Response == SearchResults {
    static func search(for query: String) -> Self {
        Endpoint(path: "search", queryItems: [URLQueryItem(name: "q", value: query)])
    }
}

struct AdminToken: Sendable { var value: String }
enum AdminKind: EndpointKind {
    static func prepare(_ request: inout URLRequest, with token: AdminToken) throws {
        request.setValue("Admin \(token.value)", forHTTPHeaderField: "Authorization")
    }
}
extension Endpoint where Kind == EndpointKinds.Private, Response == JSONLines<Item> {
    static var itemFeed: Self { Endpoint(path: "items/feed") }
}
extension Endpoint where Kind == EndpointKinds.Public, Response == ServerSentEvents {
    static var notifications: Self { Endpoint(path: "notifications") }
}
extension Endpoint where Kind == AdminKind, Response == EmptyResponse {
    static func purge(_ id: Item.ID) -> Self { Endpoint(method: .delete, path: "admin/items/\(id)") }
}

// swift-format-ignore: NeverForceUnwrap
// Written exactly as the README shows it.
let environment = ServerEnvironment(baseURL: URL(string: "https://api.example.com/v1")!)
let client = EndpointClient(environment: environment)
