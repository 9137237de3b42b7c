#if OpenAPI
/// One Swift type the generator writes for a schema: what the schema mapper decides, before any text is made.
enum ModelDeclaration: Hashable, Sendable {
    /// A `Codable` struct (or, on a cycle of direct properties, a final class) with its properties in the
    /// description's order, and the value type of `additionalProperties` when it has one.
    case object(ObjectModel)
    /// An open string enum: the description's values as cases, and `unknown(String)` for any other.
    case stringEnum(name: String, values: [String], documentation: String?)
    /// `oneOf`/`anyOf`: an enum with a case per alternative, decoded as the first alternative that decodes (or
    /// the one the discriminator names).
    case union(UnionModel)
    /// A name for another type (`typealias`), for a component that is an array, a map or a scalar.
    case alias(name: String, target: String, documentation: String?)

    /// The declaration without its name and documentation: an inline schema of the same shape as a model declared
    /// before (a component's or another inline schema's) is declared as that model.
    var shape: ModelDeclaration {
        switch self {
        case .object(var model):
            model.name = ""
            model.documentation = nil
            model.properties = model.properties.map { property in
                var property = property
                property.documentation = nil
                return property
            }
            return .object(model)
        case .stringEnum(_, let values, _): return .stringEnum(name: "", values: values, documentation: nil)
        case .union(var model):
            model.name = ""
            model.documentation = nil
            return .union(model)
        case .alias(_, let target, _): return .alias(name: "", target: target, documentation: nil)
        }
    }

    var name: String {
        switch self {
        case .object(let model): model.name
        case .stringEnum(let name, _, _): name
        case .union(let model): model.name
        case .alias(let name, _, _): name
        }
    }
}

/// An object schema as a Swift type.
struct ObjectModel: Hashable, Sendable {
    struct Property: Hashable, Sendable {
        /// The JSON key.
        var key: String
        /// The Swift name, unique in its type.
        var name: String
        /// The Swift type, without the `?` an optional property gets.
        var type: String
        /// Whether the property may be absent or `null`: not required, or nullable.
        var isOptional: Bool
        var documentation: String?
    }

    var name: String
    var properties: [Property]
    /// The type of the values of keys not in `properties`, when the schema allows them with a schema.
    var additionalValues: String?
    var documentation: String?
    /// A final class rather than a struct: the type reaches itself through properties that are not arrays,
    /// maps or unions, which a struct cannot hold.
    var isReference = false

    /// The Swift name of the member the overlay identifies the model by, when it is not `id`.
    var identifier: String?

    /// Whether the type is `Identifiable`, so a `ModelLoader` can load and keep it by its ID: it has a required
    /// member `id` of a scalar type (text, an integer, a UUID), or the overlay names another member.
    var isIdentifiable: Bool {
        identifier != nil
            || properties.contains { $0.name == "id" && !$0.isOptional && Self.identifierTypes.contains($0.type) }
    }

    /// The types an identifying member may have.
    static let identifierTypes: Set<String> = ["String", "Int", "Int32", "Int64", "UUID"]
}

/// A `oneOf`/`anyOf` schema as a Swift enum.
struct UnionModel: Hashable, Sendable {
    struct Alternative: Hashable, Sendable {
        var caseName: String
        var type: String
        /// The discriminator's value that selects this alternative, when the schema has a discriminator.
        var discriminatorValues: [String]
    }

    var name: String
    var alternatives: [Alternative]
    /// The JSON key of the discriminator property, when the schema has one.
    var discriminatorKey: String?
    var documentation: String?
    /// Whether every alternative is text, a number, a truth value, a string enum or a list of them, so that a value
    /// is sent as query items (GitHub's `fields`: a string or a list of strings).
    var isQueryText = false
}
#endif
