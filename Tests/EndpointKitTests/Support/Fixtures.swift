import EndpointKit
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct Item: Codable, Sendable, Identifiable, Equatable {
    let id: Int
    var name: String
}

struct SearchResults: Codable, Sendable, Equatable {
    var items: [Item]
}

struct NewItem: Codable, Sendable, Equatable {
    var name: String
    var createdAt: Date
}

extension Endpoint where Kind == EndpointKinds.Public, Response == [Item] {
    static var featuredItems: Self { Endpoint(path: "featured") }
}

extension Endpoint where Kind == EndpointKinds.Public, Response == Item {
    static func item(_ id: Item.ID) -> Self { Endpoint(path: "items/\(id)") }
    static func item(rawID: String) -> Self { Endpoint(path: "items/\(rawID)") }
}

extension Endpoint where Kind == EndpointKinds.Private, Response == SearchResults {
    static func search(for query: String) -> Self {
        Endpoint(path: "search", queryItems: [URLQueryItem(name: "q", value: query)])
    }
}

extension Endpoint where Kind == EndpointKinds.Private, Response == Item {
    static func createItem(_ new: NewItem) -> Self {
        Endpoint(method: .post, path: "items", body: JSONBody(new))
    }
}

extension Endpoint where Kind == EndpointKinds.Private, Response == EmptyResponse {
    static func deleteItem(_ id: Item.ID) -> Self { Endpoint(method: .delete, path: "items/\(id)") }
}

/// A user-written kind: an API key in a header of its own.
struct APIKey: Sendable { var value: String }

enum APIKeyed: EndpointKind {
    static func prepare(_ request: inout URLRequest, with key: APIKey) throws {
        request.setValue(key.value, forHTTPHeaderField: "X-API-Key")
    }
}

extension Endpoint where Kind == APIKeyed, Response == [Item] {
    static var partnerItems: Self { Endpoint(path: "partner/items") }
}

enum Fixture {
    // swift-format-ignore: NeverForceUnwrap
    // A literal that is a valid URL; a typo would fail every test at once.
    static let baseURL = URL(string: "https://api.test/v1")!
    static let environment = ServerEnvironment(baseURL: baseURL)
}

/// `date` as an HTTP-date in its preferred form (`Sun, 06 Nov 1994 08:49:37 GMT`), for `Date`, `Expires`,
/// `Last-Modified` and `Retry-After` values in tests.
func httpDate(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return formatter.string(from: date)
}
