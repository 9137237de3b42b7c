import EndpointKit
import Foundation

/// What httpbin echoes back about a request.
struct Echo: Decodable, Sendable {
    var args: [String: String]?
    var headers: [String: String]
    var url: String?
    var method: String?
    var json: JSONValue?
    var data: String?
}

/// Any JSON value, for comparing echoed bodies.
enum JSONValue: Decodable, Sendable, Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case object([String: JSONValue])
    case array([JSONValue])
    case null

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }
}

struct Item: Codable, Sendable, Identifiable, Equatable {
    let id: Int
    var name: String
}

struct BearerResult: Decodable, Sendable {
    var authenticated: Bool
    var token: String
}

struct UUIDResult: Decodable, Sendable {
    var uuid: String
}

extension Endpoint where Kind == EndpointKinds.Public, Response == Echo {
    static func get(queryItems: [URLQueryItem] = []) -> Self { Endpoint(path: "get", queryItems: queryItems) }
    static func anything(_ segment: String, queryItems: [URLQueryItem] = []) -> Self {
        Endpoint(path: "anything/\(segment)", queryItems: queryItems)
    }
    static var headersThroughRedirect: Self { Endpoint(path: "headers") }
}

extension Endpoint where Kind == EndpointKinds.Private, Response == BearerResult {
    static var bearer: Self { Endpoint(path: "bearer") }
}

extension Endpoint where Kind == EndpointKinds.Public, Response == BearerResult {
    static var bearerWithoutToken: Self { Endpoint(path: "bearer") }
}

extension Endpoint where Kind == EndpointKinds.Public, Response == UUIDResult {
    static var uuid: Self { Endpoint(path: "uuid") }
}

extension Endpoint where Kind == EndpointKinds.Public, Response == EmptyResponse {
    static func status(_ code: Int) -> Self { Endpoint(path: "status/\(code)") }
    static func delay(seconds: Int) -> Self { Endpoint(path: "delay/\(seconds)") }
}

extension Endpoint where Kind == EndpointKinds.Private, Response == Echo {
    static func redirect(to url: URL) -> Self {
        Endpoint(path: "redirect-to", queryItems: [URLQueryItem(name: "url", value: url.absoluteString)])
    }
}
