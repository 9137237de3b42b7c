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
        case encodable(any Encodable & Sendable, ListStyle)
    }

    /// How a form made from an `Encodable` writes a list.
    public enum ListStyle: Sendable, Hashable {
        /// Each item under the list's name, `ids=1&ids=2` (OpenAPI's `form` style). A list that holds objects or
        /// lists cannot be written so (its items' fields could not be told apart) and fails to encode.
        case repeatedName
        /// Each item under its index in brackets, `ids[0]=1&ids[1]=2`, `items[0][price]=p`: what Stripe's API and
        /// Rails-style readers take for nested lists (OpenAPI's `deepObject` style, as Stripe describes it). An
        /// item that writes no field (`null`, an empty object or list) takes no index, so the indexes run 0, 1, 2.
        case indexed
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
    /// key and date strategies apply. Fields are sorted by name; nested objects become `outer[inner]`, lists are
    /// written as `lists` says (by default each item repeats the name), `null` drops the field, and booleans are
    /// `true`/`false`. A nested key that is empty or holds `[` or `]` fails to encode: no bracketed name carries it.
    public init(encoding value: some Encodable & Sendable, lists: ListStyle = .repeatedName) {
        self.fields = .encodable(value, lists)
    }

    /// Encodes the fields.
    public func makeContent(context: RequestBodyContext) throws -> RequestBodyContent {
        let pairs: [(String, String)]
        switch fields {
        case .pairs(let list):
            pairs = list
        case .encodable(let value, let lists):
            let json = try context.jsonEncoder.encode(value)
            let tree = try JSONDecoder().decode(FormValue.self, from: json)
            guard case .object = tree else { throw Self.invalid(value, "a form needs a keyed value at its top level") }
            var flattened: [(String, String)] = []
            if let reason = tree.flatten(prefix: nil, lists: lists, into: &flattened) {
                throw Self.invalid(value, reason)
            }
            pairs = flattened
        }
        let body = pairs.map {
            PercentEncoding.encodeQueryComponent($0.0) + "=" + PercentEncoding.encodeQueryComponent($0.1)
        }.joined(separator: "&")
        return RequestBodyContent(contentType: "application/x-www-form-urlencoded", data: Data(body.utf8))
    }

    private static func invalid(_ value: any Encodable, _ reason: String) -> EncodingError {
        EncodingError.invalidValue(value, EncodingError.Context(codingPath: [], debugDescription: reason))
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

    /// Appends the fields of this value under `prefix` to `pairs`; returns why it cannot, having stopped there: a
    /// list of objects or lists under repeated names, or a nested key that is empty or holds a bracket, which a
    /// bracketed name cannot carry.
    func flatten(prefix: String?, lists: FormBody.ListStyle, into pairs: inout [(String, String)]) -> String? {
        switch self {
        case .null:
            return nil
        case .text(let text):
            if let prefix { pairs.append((prefix, text)) }
            return nil
        case .list(let list):
            // A list is never at the top level, so it always has a name.
            let listName = prefix ?? ""
            var index = 0  // of the next item that writes a field: one that writes none takes no index
            for item in list {
                let name: String
                switch (lists, item) {
                case (.indexed, _): name = "\(listName)[\(index)]"
                case (.repeatedName, .list), (.repeatedName, .object):
                    return "the list `\(listName)` holds objects or lists, which repeated names cannot tell apart: "
                        + "use FormBody(encoding:lists: .indexed)"
                case (.repeatedName, _): name = listName
                }
                let written = pairs.count
                if let stopped = item.flatten(prefix: name, lists: lists, into: &pairs) { return stopped }
                if pairs.count > written { index += 1 }
            }
            return nil
        case .object(let object):
            for key in object.keys.sorted() {
                if let prefix, key.isEmpty || key.contains("[") || key.contains("]") {
                    return "`\(prefix)` has a key that is empty or holds a bracket, which `\(prefix)[key]` cannot carry"
                }
                let name = prefix.map { "\($0)[\(key)]" } ?? key
                if let stopped = object[key]?.flatten(prefix: name, lists: lists, into: &pairs) { return stopped }
            }
            return nil
        }
    }
}
