import Foundation

/// A URL-encoded form, sent as `application/x-www-form-urlencoded`.
///
///     let login = Endpoint<EndpointKinds.Public, Session>(
///         method: .post,
///         path: "login",
///         body: FormBody(["username": name, "password": password])
///     )
///     let same = Endpoint<EndpointKinds.Public, Session>(method: .post, path: "login", body: FormBody(encoding: credentials))
///
/// Fields are encoded like query items (see ``QueryValue``): arrays repeat the name, a `nil` optional drops
/// the field, and every character but RFC 3986's unreserved ones is percent-encoded (a space as `%20`), so
/// `+`, `&` and `=` arrive as written.
public struct FormBody: RequestBody {
    private enum Fields: Sendable {
        case pairs([(String, String)])
        case encodable(any Encodable & Sendable)
    }

    private let fields: Fields

    /// Creates a form from name–value pairs, in order.
    public init(_ fields: KeyValuePairs<String, any QueryValue>) {
        self.fields = .pairs(fields.flatMap { name, value in value.queryValues.map { (name, $0) } })
    }

    /// Creates a form from name–value pairs of text, in order.
    public init(fields: [(name: String, value: String)]) {
        self.fields = .pairs(fields.map { ($0.name, $0.value) })
    }

    /// Creates a form from the properties of an `Encodable` value, through the client's JSON encoder so that its
    /// key and date strategies apply. Fields are sorted by name; nested objects become `outer[inner]`, arrays
    /// repeat the name, `null` drops the field, and booleans are `true`/`false`.
    public init(encoding value: some Encodable & Sendable) {
        self.fields = .encodable(value)
    }

    /// Encodes the fields.
    public func makeContent(context: RequestBodyContext) throws -> RequestBodyContent {
        let pairs: [(String, String)]
        switch fields {
        case .pairs(let list):
            pairs = list
        case .encodable(let value):
            let json = try context.jsonEncoder.encode(value)
            let tree = try JSONDecoder().decode(FormValue.self, from: json)
            guard case .object = tree else {
                throw EncodingError.invalidValue(
                    value,
                    EncodingError.Context(
                        codingPath: [],
                        debugDescription: "a form needs a keyed value at its top level"
                    )
                )
            }
            pairs = tree.flattened(prefix: nil)
        }
        let body = pairs.map {
            PercentEncoding.encodeQueryComponent($0.0) + "=" + PercentEncoding.encodeQueryComponent($0.1)
        }.joined(separator: "&")
        return RequestBodyContent(contentType: "application/x-www-form-urlencoded", data: Data(body.utf8))
    }
}

/// A JSON value as form fields see it.
private enum FormValue: Decodable {
    case text(String)
    case list([FormValue])
    case object([String: FormValue])
    case null

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .text(bool ? "true" : "false")
        } else if let number = try? container.decode(Int64.self) {
            self = .text(String(number))
        } else if let number = try? container.decode(Double.self) {
            self = .text(number.description)
        } else if let text = try? container.decode(String.self) {
            self = .text(text)
        } else if let list = try? container.decode([FormValue].self) {
            self = .list(list)
        } else {
            self = .object(try container.decode([String: FormValue].self))
        }
    }

    func flattened(prefix: String?) -> [(String, String)] {
        switch self {
        case .null:
            return []
        case .text(let text):
            return prefix.map { [($0, text)] } ?? []
        case .list(let list):
            return list.flatMap { $0.flattened(prefix: prefix) }
        case .object(let object):
            return object.keys.sorted().flatMap { key in
                object[key]?.flattened(prefix: prefix.map { "\($0)[\(key)]" } ?? key) ?? []
            }
        }
    }
}
