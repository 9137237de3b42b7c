// swift-format-ignore-file
// (A fixture of the names the docs take for granted, public only so that examples can import it: it is no API,
// and its declarations go undocumented on purpose.)
// What the docs' examples take for granted, compiled as a module of its own (DocPrelude) that each example
// imports: a client, a token, an item and its endpoints, the places files go. An example that declares one of
// these itself uses its own: a name in the example's module shadows the prelude's.
@_exported import EndpointKit
@_exported import EndpointKitTesting
@_exported import Foundation

#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif

public struct Item: Codable, Sendable, Identifiable, Equatable {
    public let id: Int
    public var name: String
    public init(id: Int, name: String) {
        self.id = id
        self.name = name
    }
}
public struct NewItem: Codable, Sendable {
    public var name: String
    public init(name: String) { self.name = name }
}
public struct SearchResults: Codable, Sendable { public var items: [Item] }
public struct Issue: Codable, Sendable, Identifiable {
    public var id: Int
    public var title: String
}
public struct Repository: Codable, Sendable { public var fullName: String }
public struct Session: Codable, Sendable { public var token: String }
public struct Tick: Codable, Sendable { public var index: Int }
public struct Event: Codable, Sendable { public var id: Int }
public struct Profile: Codable, Sendable { public var name: String }
public struct Stats: Codable, Sendable { public var count: Int }
public struct APIKey: Sendable { public var value: String }
public struct APIError: Decodable, Sendable, Error { public var message: String }
public struct Feed: Codable, Sendable {
    public var items: [Item]
    public var nextCursor: String?
}

extension ServerEnvironment {
    public static let production = ServerEnvironment(baseURL: URL(string: "https://api.example.com/v1")!)
    public static let staging = ServerEnvironment(baseURL: URL(string: "https://staging.example.com/v1")!)
}

extension Endpoint where Kind == EndpointKinds.Public, Response == [Item] {
    public static var featuredItems: Self { Endpoint(path: "featured") }
    public static var items: Self { Endpoint(path: "items") }
}
extension Endpoint where Kind == EndpointKinds.Public, Response == Item {
    public static func item(_ id: Item.ID) -> Self { Endpoint(path: "items/\(id)") }
}
extension Endpoint where Kind == EndpointKinds.Public, Response == Repository {
    public static func repository(_ name: String) -> Self { Endpoint(path: "repos/\(name)") }
}
extension Endpoint where Kind == EndpointKinds.Public, Response == Feed {
    public static var feed: Self { Endpoint(path: "feed") }
}
extension Endpoint where Kind == EndpointKinds.Private, Response == SearchResults {
    public static func search(for query: String) -> Self {
        Endpoint(path: "search", queryItems: [URLQueryItem(name: "q", value: query)])
    }
}
extension Endpoint where Kind == EndpointKinds.Private, Response == [Issue] {
    public static func issues(in repository: String) -> Self { Endpoint(path: "repos/\(repository)/issues") }
}
extension Endpoint where Kind == EndpointKinds.Private, Response == Item {
    public static func createItem(_ new: NewItem) -> Self {
        Endpoint(method: .post, path: "items", body: JSONBody(new))
    }
    public static func rename(_ item: Item) -> Self {
        Endpoint(method: .patch, path: "items/\(item.id)", body: JSONBody(item))
    }
    public static func save(_ item: Item) -> Self {
        Endpoint(method: .put, path: "items/\(item.id)", body: JSONBody(item))
    }
}
extension Endpoint where Kind == EndpointKinds.Private, Response == URL {
    public static func releaseAsset(_ id: Int) -> Self { Endpoint(path: "releases/assets/\(id)") }
}
extension Endpoint where Kind == EndpointKinds.Private, Response == JSONLines<Tick> {
    public static var ticks: Self { Endpoint(path: "ticks") }
}
extension Endpoint where Kind == EndpointKinds.Private, Response == ServerSentEvents {
    public static var notifications: Self { Endpoint(path: "notifications") }
}
extension Endpoint where Kind == EndpointKinds.Private, Response == Data {
    public static var liveLog: Self { Endpoint(path: "log") }
    public static func events(since cursor: String?) -> Self {
        Endpoint(path: "events", queryItems: cursor.map { [URLQueryItem(name: "since", value: $0)] } ?? [])
    }
}
extension Endpoint where Kind == EndpointKinds.Authenticated, Response == Profile {
    public static var myProfile: Self { Endpoint(path: "me") }
}
extension Endpoint where Kind == EndpointKinds.Basic, Response == Stats {
    public static var adminStats: Self { Endpoint(path: "admin/stats") }
}
extension Endpoint where Kind == EndpointKinds.Public, Response == URL {
    public static func asset(_ id: Int) -> Self { Endpoint(path: "assets/\(id)") }
}
extension Endpoint where Kind == EndpointKinds.Private, Response == [Repository] {
    public static func repositories(of owner: String) -> Self { Endpoint(path: "users/\(owner)/repos") }
}
extension Endpoint where Kind == EndpointKinds.Private, Response == JSONLines<Item> {
    public static var itemFeed: Self { Endpoint(path: "items/feed") }
}

public let environment = ServerEnvironment.production
public let har = URL(fileURLWithPath: "/tmp/recording.har")
public let testClock = TestClock()
public let env = ServerEnvironment.production
public let client = EndpointClient(environment: .production)
public let token = AccessToken("s3cr3t")
public let loader = ModelLoader<Item>(client: client) { .item($0) }
public func currentToken() async -> AccessToken { token }
public let outbox = try! Outbox<EndpointKinds.Private>(directory: FileManager.default.temporaryDirectory.appendingPathComponent("doc-outbox"), client: client) { token }
public let id = 42
public let repo = "apple/swift"
public let cursor: String? = nil
public let item = Item(id: 42, name: "Tea")
public let renamed = Item(id: 42, name: "Green tea")
public let edited = renamed
public let newItem = NewItem(name: "Tea")
public let folder = FileManager.default.temporaryDirectory
public let downloads = FileManager.default.temporaryDirectory
public let cachesFolder = FileManager.default.temporaryDirectory
public let archiveURL = URL(fileURLWithPath: "/tmp/archive.zip")
public let photoURL = URL(fileURLWithPath: "/tmp/photo.jpg")
public let png = Data()
public let data = Data()
public let userID = 7
public let requestID = "r-1"
public let secret = "s3cr3t"
public let password = "hunter2"
public let notes = "notes"
public let limit = 1 << 20
public let decoder = JSONDecoder()
public func show(_ value: Any) {}
public func showMissing() {}
public func render(_ value: Any) {}
public func log(_ message: String) {}
public let logger = Logger()
/// A logger, as an app has one.
public struct Logger: Sendable {
    public func info(_ message: String) {}
    public func error(_ message: String) {}
}
/// What an app shows.
public let spinner = Spinner()
public final class Spinner: @unchecked Sendable { public var isHidden = true }
public func banner(_ error: EndpointError) {}
public let bar = ProgressBar()
public struct ProgressBar: Sendable { public func show(_ fraction: Double) {} }
public let histogram = Histogram()
public struct Histogram: Sendable { public func record(_ duration: Duration) {} }
public let session = SessionRenewal()
public struct SessionRenewal: Sendable { public func renew() async throws {} }
public let albumID = 3
public let name = "ada"
public let credentials = ["username": "ada", "password": "hunter2"]
public let destination = FileManager.default.temporaryDirectory.appendingPathComponent("file.bin")
public var endpoint: Endpoint<EndpointKinds.Public, Item> { .item(42) }
public let response = TransportResponse(statusCode: 200, headers: HTTPHeaders(), data: Data())
public let file = FileHandle.standardOutput

/// A keychain, as an app has one.
public enum Keychain { public static func accessToken() async throws -> AccessToken { token } }
public let keychain = KeychainAccess()
public struct KeychainAccess: Sendable { public func accessToken() async throws -> AccessToken { token } }
public let authServer = AuthServer()
public let auth = BearerAuthentication(token: { token }, refresh: { _ in token })
public struct AuthServer: Sendable {
    public func refresh(_ rejected: AccessToken) async throws -> AccessToken { token }
}
