#if OpenAPI
import OpenAPIKit

/// Maps JSON schemas to Swift types, declaring a model for each component schema and for each inline object,
/// enum or union it meets, named after where it sits (`Customer` → `Customer.Address` is `CustomerAddress`).
struct SchemaMapper {
    let components: OpenAPI.Components
    /// The models declared so far, by name, in the order they were first declared.
    private(set) var declarations: [String: ModelDeclaration] = [:]
    private(set) var order: [String] = []
    /// The names in `order`.
    private var reserved: Set<String> = []
    /// Every name a new model may not take: the component schemas', the support file's, and those in `order`.
    private var taken: Set<String>
    /// How many pointers are being followed now: a pointer that leads back to itself stops at `JSONValue`.
    private var pointerDepth = 0
    /// The name of each model by its shape, so that an inline shape met again is not declared again.
    private var shapes: [ModelDeclaration: String] = [:]
    /// The names suggested for each model declared from an inline schema, one per use: what its uses share names
    /// it (``sharedNames()``).
    private var uses: [String: [String]] = [:]
    /// The Swift type name of each component schema.
    private let componentNames: [String: String]

    init(components: OpenAPI.Components) {
        self.components = components
        var names: [String: String] = [:]
        var taken = Set(SupportFile.typeNames)
        for key in components.schemas.keys {
            names[key.rawValue] = Self.unique(Self.unreserved(SwiftName.type(key.rawValue)), in: &taken)
        }
        componentNames = names
        self.taken = taken
    }

    /// Declares every component schema, so that a model exists even when no operation names it.
    mutating func declareComponents() {
        for (key, schema) in components.schemas {
            guard let name = componentNames[key.rawValue] else { continue }
            declare(schema, as: name)
        }
    }

    /// The Swift type of `schema` where it is used, without the `?` of an optional value; `suggested` names
    /// a model the schema needs declared.
    mutating func type(of schema: JSONSchema, suggested: String) -> String {
        switch schema.value {
        case .reference(let reference, _):
            if case .internal(.component(let name)) = reference, let type = componentNames[name] { return type }
            // A pointer into a component (`#/components/schemas/Page/properties/page`): the schema it points at.
            let steps: [String]
            switch reference {
            case .internal(.path(let path)): steps = path.components.map(\.stringValue)
            case .internal(.component(let name)):
                steps = ["components", "schemas"] + name.split(separator: "/").map(String.init)
            case .external: steps = []
            }
            guard pointerDepth < 8, let target = pointer(steps) else { return SupportFile.jsonValue }
            pointerDepth += 1
            defer { pointerDepth -= 1 }
            return type(of: target, suggested: SwiftName.type(steps.dropFirst(2).joined(separator: " ")))
        case .boolean: return "Bool"
        case .integer(let core, _): return core.formatString == "int64" ? "Int64" : "Int"
        case .number(let core, _): return core.formatString == "float" ? "Float" : "Double"
        case .string(let core, _):
            let values = Self.strings(core.allowedValues)
            if !values.isEmpty {
                return declareOnce(suggested) { _, name in
                    .stringEnum(name: name, values: values, documentation: core.description)
                }
            }
            switch core.formatString {
            case "date-time": return "Date"
            case "byte": return "Data"
            default: return "String"
            }
        case .array(_, let array):
            guard let items = array.items else { return "[\(SupportFile.jsonValue)]" }
            return "[\(type(of: items, suggested: suggested + "Item"))]"
        case .object(_, let object):
            if object.properties.isEmpty {
                guard case .b(let values) = object.additionalProperties else { return SupportFile.jsonObject }
                return "[String: \(type(of: values, suggested: suggested + "Value"))]"
            }
            return declareOnce(suggested) { $0.objectModel(schema, name: $1) }
        case .all(let parts, _):
            if parts.count == 1 { return type(of: parts[0], suggested: suggested) }
            return declareOnce(suggested) { $0.objectModel(schema, name: $1) }
        case .one(let alternatives, _), .any(let alternatives, _):
            let present = alternatives.filter { !Self.isNull($0) }
            if present.count == 1 { return type(of: present[0], suggested: suggested) }
            if let value = Self.besideEmptyString(present) {
                return "\(SupportFile.orEmpty)<\(type(of: value, suggested: suggested))>"
            }
            return declareOnce(suggested) { $0.unionModel(schema, alternatives: present, name: $1) }
        case .null, .not, .fragment:
            return SupportFile.jsonValue
        }
    }

    /// Whether a value of `schema` may be `null`: declared nullable, or a union with a `null` alternative.
    func isNullable(_ schema: JSONSchema) -> Bool {
        if schema.nullable { return true }
        switch schema.value {
        case .one(let alternatives, _), .any(let alternatives, _): return alternatives.contains(where: Self.isNull)
        default: return false
        }
    }

    /// Whether `schema` is read-only or write-only: a member one direction never carries, so optional in the one
    /// model both directions share, even when required (Linode's `Domain.id` must not be sent).
    func isOneWay(_ schema: JSONSchema) -> Bool {
        let target = resolved(schema) ?? schema
        return schema.readOnly || schema.writeOnly || target.readOnly || target.writeOnly
    }

    /// The schema a reference names, followed through references; `nil` when it names nothing.
    func resolved(_ schema: JSONSchema) -> JSONSchema? {
        var current = schema
        for _ in 0..<16 {
            guard case .reference(let reference, _) = current.value else { return current }
            guard let name = reference.name, let next = components.schemas[.init(stringLiteral: name)] else {
                return nil
            }
            current = next
        }
        return nil
    }

    /// The schema a JSON pointer into the components names: `components/schemas/<name>`, then `properties/<key>`,
    /// `items`, `additionalProperties`, or `allOf`/`oneOf`/`anyOf` and an index, in any depth.
    func pointer(_ path: [String]) -> JSONSchema? {
        guard path.count >= 3, path[0] == "components", path[1] == "schemas",
            var current = components.schemas[.init(stringLiteral: path[2])]
        else { return nil }
        var rest = path.dropFirst(3)
        while let step = rest.first {
            rest = rest.dropFirst()
            guard let schema = resolved(current) else { return nil }
            switch (step, schema.value) {
            case ("properties", .object(_, let object)):
                guard let key = rest.first, let next = object.properties[key] else { return nil }
                rest = rest.dropFirst()
                current = next
            case ("items", .array(_, let array)):
                guard let next = array.items else { return nil }
                current = next
            case ("additionalProperties", .object(_, let object)):
                guard case .b(let next) = object.additionalProperties else { return nil }
                current = next
            case ("allOf", .all(let parts, _)), ("oneOf", .one(let parts, _)), ("anyOf", .any(let parts, _)):
                guard let index = rest.first.flatMap({ Int($0) }), parts.indices.contains(index) else { return nil }
                rest = rest.dropFirst()
                current = parts[index]
            default:
                return nil
            }
        }
        return current
    }

    // MARK: Declaring

    private mutating func declare(_ schema: JSONSchema, as name: String) {
        guard declarations[name] == nil else { return }
        switch schema.value {
        case .object(_, let object) where !object.properties.isEmpty:
            declareOnce(name, exact: true) { $0.objectModel(schema, name: $1) }
        case .all(let parts, _) where parts.count > 1:
            declareOnce(name, exact: true) { $0.objectModel(schema, name: $1) }
        case .string(let core, _) where !(core.allowedValues ?? []).isEmpty:
            declareOnce(name, exact: true) { _, name in
                .stringEnum(name: name, values: Self.strings(core.allowedValues), documentation: core.description)
            }
        case .one(let alternatives, _), .any(let alternatives, _):
            let present = alternatives.filter { !Self.isNull($0) }
            if present.count > 1, Self.besideEmptyString(present) == nil {
                declareOnce(name, exact: true) { $0.unionModel(schema, alternatives: present, name: $1) }
            } else {
                alias(name, to: schema)
            }
        default:
            alias(name, to: schema)
        }
    }

    private mutating func alias(_ name: String, to schema: JSONSchema) {
        reserve(name)
        let target = type(of: schema, suggested: name + "Value")
        record(.alias(name: name, target: target, documentation: schema.description))
    }

    /// Declares the model `make` builds and returns its name: `name` itself when `exact` (a component's name,
    /// unique already), or else `name` made unique among the models. The name is reserved before `make` runs,
    /// so that a model met again while it is being made is not declared twice.
    @discardableResult
    private mutating func declareOnce(
        _ name: String,
        exact: Bool = false,
        _ make: (inout SchemaMapper, String) -> ModelDeclaration
    ) -> String {
        var chosen = name
        if !exact { chosen = Self.unique(Self.unreserved(name), in: &taken) }
        reserve(chosen)
        let declaration = make(&self, chosen)
        // A model that names itself keeps its own declaration: another name would leave the reference dangling.
        if !exact, let existing = shapes[declaration.shape], !String(describing: declaration.shape).contains(chosen) {
            if order.last == chosen { order.removeLast() } else { order.removeAll { $0 == chosen } }
            reserved.remove(chosen)
            taken.remove(chosen)
            uses[existing]?.append(name)
            return existing
        }
        // A component's shape is kept too, so that an inline schema of the same shape is declared as it.
        if shapes[declaration.shape] == nil { shapes[declaration.shape] = chosen }
        if !exact { uses[chosen] = [name] }
        record(declaration)
        return chosen
    }

    /// New names for models declared from inline schemas that several uses share: the words their suggested names
    /// end with in common (`SearchReposOrder` and `EnterpriseAdminGetAuditLogOrder` share `Order`), when no other
    /// model has that name; in the description's order, so the same description names them the same way.
    func sharedNames() -> [String: String] {
        var renames: [String: String] = [:]
        var names = Set(declarations.keys).union(taken)
        for name in order {
            guard let suggested = uses[name], Set(suggested).count > 1 else { continue }
            let words = suggested.map(SwiftName.words)
            var common: [String] = []
            while let last = words[0].dropLast(common.count).last,
                words.allSatisfy({ $0.count > common.count && $0[$0.count - common.count - 1] == last })
            {
                common.insert(last, at: 0)
            }
            let shared = Self.unreserved(SwiftName.type(common.joined(separator: " ")))
            guard !common.isEmpty, shared != name, !names.contains(shared) else { continue }
            names.insert(shared)
            renames[name] = shared
        }
        return renames
    }

    private mutating func reserve(_ name: String) {
        if !reserved.contains(name) {
            order.append(name)
            reserved.insert(name)
        }
    }

    private mutating func record(_ declaration: ModelDeclaration) {
        declarations[declaration.name] = declaration
    }

    /// Takes a type name for a declaration of the generated code's own (an operation's error enum): `name`, or with a
    /// number when a model or another declaration has it.
    mutating func claim(_ name: String) -> String {
        Self.unique(Self.unreserved(name), in: &taken)
    }

    static func unique(_ name: String, in taken: inout Set<String>) -> String {
        var candidate = name
        var number = 2
        while taken.contains(candidate) {
            candidate = "\(name)\(number)"
            number += 1
        }
        taken.insert(candidate)
        return candidate
    }

    /// `name`, or `name` with `Model` after it when it is the name of a type the generated code or its users
    /// name from EndpointKit, Foundation or the standard library (Box's `AccessToken`, Stripe's `Error`), which
    /// a model of that name would hide.
    static func unreserved(_ name: String, suffix: String = "Model") -> String {
        reservedTypeNames.contains(name) ? name + suffix : name
    }

    private static let reservedTypeNames: Set<String> = [
        // EndpointKit
        "AccessToken", "BasicCredentials", "BearerAuthentication", "DataBody", "EmptyResponse", "Endpoint",
        "EndpointClient", "EndpointError", "EndpointKind", "EndpointKinds", "EndpointPath", "FileBody", "FormBody",
        "HTTPHeaders", "HTTPMethod", "JSONBody", "MultipartBody", "NetworkResponse", "NextPage", "Pages",
        "QueryValue", "RequestBody", "RequestOptions", "Response", "ResponseEnvelope", "ServerEnvironment",
        "TransportRequest", "EndpointKit",
        // Foundation and the standard library
        "Any", "Array", "Bool", "CharacterSet", "Codable", "CodingKey", "CodingKeys", "Data", "Date", "Decimal",
        "Decodable", "Decoder", "DecodingError", "Dictionary", "Double", "Encodable", "Encoder", "EncodingError",
        "Equatable", "Error", "Float", "Foundation", "Hashable", "Identifiable", "Int", "Int32", "Int64", "JSONDecoder",
        "JSONEncoder", "Never",
        "Optional", "Protocol", "Result", "Self", "Sendable", "Set", "String", "Type", "URL", "URLComponents",
        "URLQueryItem", "URLRequest", "UUID", "Void",
    ]

    /// The string values of an `enum`, in order, without repeats.
    static func strings(_ values: [AnyCodable]?) -> [String] {
        var seen = Set<String>()
        return (values ?? []).compactMap { $0.value as? String }.filter { seen.insert($0).inserted }
    }

    /// The other alternative when `alternatives` are two and one is the empty string alone (`enum: [""]`, which
    /// Stripe lists to clear a field): such a union is an `OrEmpty` of the other.
    static func besideEmptyString(_ alternatives: [JSONSchema]) -> JSONSchema? {
        guard alternatives.count == 2 else { return nil }
        let empty = alternatives.map { schema in
            if case .string(let core, _) = schema.value { return strings(core.allowedValues) == [""] }
            return false
        }
        switch (empty[0], empty[1]) {
        case (true, false): return alternatives[1]
        case (false, true): return alternatives[0]
        default: return nil
        }
    }

    static func isNull(_ schema: JSONSchema) -> Bool {
        if case .null = schema.value { return true }
        return false
    }
}
#endif
