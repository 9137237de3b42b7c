#if OpenAPI
/// The one source file every generated module has: any JSON value, and the coders of its endpoints.
enum SupportFile {
    static let jsonValue = "JSONValue"
    static let jsonObject = "[String: JSONValue]"
    static let coding = "OpenAPICoding"
    /// Names the generated module declares besides its models and kinds.
    static let typeNames = [
        jsonValue, coding, KindPlanner.namespace, "OpenEnum", "APIKeyPlacement", "DocumentedErrorMissing",
    ]

    static let fileName = "OpenAPISupport.swift"

    static let text = """
        import EndpointKit
        import Foundation

        /// Any JSON value: what a schema that says nothing of its shape decodes to.
        public enum JSONValue: Codable, Hashable, Sendable {
            case null
            case bool(Bool)
            case number(Double)
            case string(String)
            case array([JSONValue])
            case object([String: JSONValue])

            public init(from decoder: any Decoder) throws {
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

            public func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                switch self {
                case .null: try container.encodeNil()
                case .bool(let value): try container.encode(value)
                case .number(let value): try container.encode(value)
                case .string(let value): try container.encode(value)
                case .array(let value): try container.encode(value)
                case .object(let value): try container.encode(value)
                }
            }
        }

        /// A string enum that keeps the values its description does not list: `unknown` holds them, and they are
        /// sent back as they came, so a value a server adds later never fails a response.
        public protocol OpenEnum: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible, QueryValue
        where RawValue == String {
            /// Every case the description lists, in its order.
            static var listed: [Self] { get }
            /// A value the description does not list.
            static func unknown(_ value: String) -> Self
        }

        extension OpenEnum {
            /// The listed case whose value is `rawValue`, or `unknown(rawValue)`.
            public init(rawValue: String) {
                self = Self.listed.first { $0.rawValue == rawValue } ?? .unknown(rawValue)
            }

            /// The value as it is sent.
            public var description: String { rawValue }
        }

        extension EndpointError {
            /// The response body, decoded as an error body the API documents for the call (each factory's
            /// documentation names them); throws when the error carries no body, or the body does not decode.
            public func documentedBody<Body: Decodable>(as type: Body.Type) throws -> Body {
                guard let body, !body.isEmpty else { throw DocumentedErrorMissing(statusCode: statusCode) }
                return try OpenAPICoding.decoder.decode(type, from: body)
            }
        }

        /// An `EndpointError` that carries no documented error body: no response, an empty body, or a status
        /// the operation documents no body for.
        public struct DocumentedErrorMissing: Error, Sendable, CustomStringConvertible {
            /// The response's status, when there was a response.
            public var statusCode: Int?

            public var description: String {
                "no documented error body" + (statusCode.map { " for status \\($0)" } ?? "")
            }
        }

        /// The coders of the generated endpoints: dates as RFC 3339 text, with or without fractional seconds.
        public enum OpenAPICoding {
            /// Decodes responses; a `date-time` that is not RFC 3339 text fails with its coding path.
            public static let decoder: JSONDecoder = {
                let decoder = JSONDecoder()
                decoder.dateDecodingStrategy = .custom { decoder in
                    let container = try decoder.singleValueContainer()
                    let text = try container.decode(String.self)
                    if let date = try? Date(text, strategy: .iso8601) { return date }
                    let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
                    if let date = try? Date(text, strategy: fractional) { return date }
                    throw DecodingError.dataCorruptedError(
                        in: container, debugDescription: "not an RFC 3339 date-time: \\(text)")
                }
                return decoder
            }()

            /// Encodes request bodies; dates as RFC 3339 text in UTC.
            public static let encoder: JSONEncoder = {
                let encoder = JSONEncoder()
                encoder.dateEncodingStrategy = .iso8601
                return encoder
            }()
        }

        """
}
#endif
