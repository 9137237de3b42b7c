import EndpointKit
import Foundation

/// httpbin's `/anything` echo: method, query, headers and the body as it parsed it.
struct AnythingEcho: Decodable, Sendable {
    var method: String
    var args: [String: JSONValue]
    var headers: [String: String]
    var data: String
    var form: [String: JSONValue]
    var files: [String: JSONValue]
    var json: JSONValue?
}

extension Endpoint where Kind == EndpointKinds.Public, Response == AnythingEcho {
    /// `/anything/<segment>` with any method, query and body.
    static func anything(
        _ method: HTTPMethod,
        segment: String = "echo",
        query: [URLQueryItem] = [],
        headers: HTTPHeaders = HTTPHeaders(),
        body: (any RequestBody)? = nil
    ) -> Self {
        Endpoint(method: method, path: "anything/\(segment)", queryItems: query, headers: headers, body: body)
    }
}

extension JSONValue {
    /// The text of a `.string`, or `nil`.
    var text: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The strings of an `.array` of strings, or of a single `.string`.
    var texts: [String] {
        switch self {
        case .string(let text): return [text]
        case .array(let values): return values.compactMap(\.text)
        default: return []
        }
    }
}
