import EndpointKit
import Foundation

/// An item in the demo catalogue.
struct Item: Codable, Sendable, Identifiable, Equatable {
    let id: Int
    var name: String
}

/// What the private search returns.
struct SearchResults: Codable, Sendable {
    var items: [Item]
}

extension Endpoint where Kind == EndpointKinds.Public, Response == [Item] {
    /// The items on the front page.
    static var featuredItems: Self { Endpoint(path: "featured") }
}

extension Endpoint where Kind == EndpointKinds.Public, Response == Item {
    /// One item by ID.
    static func item(_ id: Item.ID) -> Self { Endpoint(path: "items/\(id)") }

    /// Renames an item; the server answers with the item as it now is.
    static func rename(_ item: Item) -> Self {
        Endpoint(method: .patch, path: "items/\(item.id)", body: JSONBody(item))
    }

    /// One item by a raw, untrusted identifier; the interpolation keeps it inside one path segment.
    static func item(rawID: String) -> Self { Endpoint(path: "items/\(rawID)") }
}

extension Endpoint where Kind == EndpointKinds.Private, Response == SearchResults {
    /// Items whose name contains `query`; needs an access token.
    static func search(for query: String) -> Self {
        Endpoint(path: "search", queryItems: [URLQueryItem(name: "q", value: query)])
    }
}

extension Endpoint where Kind == EndpointKinds.Public, Response == [Item] {
    /// The whole catalogue, a page at a time; the `Link` header names the next page.
    static var catalogue: Self { Endpoint(path: "catalogue") }
}

extension Endpoint where Kind == EndpointKinds.Public, Response == URL {
    static var catalogueFile: Self { Endpoint(path: "files/catalogue.bin") }
}

extension Endpoint where Kind == EndpointKinds.Public, Response == ServerSentEvents {
    static var storeEvents: Self { Endpoint(path: "events") }
}
