#if OpenAPI
import OpenAPIKit

extension SchemaMapper {
    /// An object schema, or an `allOf` of object schemas merged into one, as a struct.
    mutating func objectModel(_ schema: JSONSchema, name: String) -> ModelDeclaration {
        var fields: [(key: String, schema: JSONSchema)] = []
        var additional: JSONSchema?
        collectProperties(of: schema, into: &fields, additional: &additional, depth: 0)
        var taken = Set<String>()
        var properties: [ObjectModel.Property] = []
        for (key, property) in fields where !properties.contains(where: { $0.key == key }) {
            let type = type(of: property, suggested: name + SwiftName.type(key))
            properties.append(
                ObjectModel.Property(
                    key: key,
                    name: Self.unique(SwiftName.member(key), in: &taken),
                    type: type,
                    isOptional: !property.required || isNullable(property) || isOneWay(property),
                    documentation: property.description
                )
            )
        }
        let additionalValues = additional.map { type(of: $0, suggested: name + "Value") }
        return .object(
            ObjectModel(
                name: name,
                properties: properties,
                additionalValues: additionalValues,
                documentation: schema.description
            )
        )
    }

    /// The properties of `schema`, followed through references and `allOf`, first seen first.
    private func collectProperties(
        of schema: JSONSchema,
        into fields: inout [(key: String, schema: JSONSchema)],
        additional: inout JSONSchema?,
        depth: Int
    ) {
        guard depth < 16, let schema = resolved(schema) else { return }
        switch schema.value {
        case .object(_, let object):
            for (key, property) in object.properties { fields.append((key, property)) }
            if case .b(let values) = object.additionalProperties, additional == nil { additional = values }
        case .all(let parts, _):
            for part in parts { collectProperties(of: part, into: &fields, additional: &additional, depth: depth + 1) }
        default:
            break
        }
    }

    /// A `oneOf` or `anyOf` schema as an enum with a case per alternative.
    mutating func unionModel(_ schema: JSONSchema, alternatives: [JSONSchema], name: String) -> ModelDeclaration {
        let discriminator = schema.discriminator
        var taken = Set<String>()
        var cases: [UnionModel.Alternative] = []
        for (index, alternative) in alternatives.enumerated() {
            let type = type(of: alternative, suggested: name + "Case\(index + 1)")
            var values: [String] = []
            if let discriminator, case .reference(let reference, _) = alternative.value, let target = reference.name {
                let mapped = (discriminator.mapping ?? [:]).filter { $0.value.hasSuffix("/" + target) }.map(\.key)
                values = mapped.isEmpty ? [target] : mapped.sorted()
            }
            // An inline alternative is named for its shape (`object`), not for the name made for it.
            var caseName = Self.caseName(forType: type)
            if type.hasPrefix(name + "Case") {
                if case .object = declarations[type] { caseName = "object" } else { caseName = "value" }
            } else if type.hasPrefix("[" + name + "Case") {
                caseName = "list"
            }
            cases.append(
                UnionModel.Alternative(
                    caseName: Self.unique(caseName, in: &taken),
                    type: type,
                    discriminatorValues: values
                )
            )
        }
        return .union(
            UnionModel(
                name: name,
                alternatives: cases,
                discriminatorKey: discriminator?.propertyName,
                documentation: schema.description,
                isQueryText: cases.allSatisfy { isQueryText($0.type) }
            )
        )
    }

    /// Whether a value of `type` is sent as query items of text: a scalar, a string enum, or a list of them (not a
    /// list of lists).
    private func isQueryText(_ type: String, inList: Bool = false) -> Bool {
        if type.hasPrefix("["), type.hasSuffix("]"), !type.contains(":") {
            return !inList && isQueryText(String(type.dropFirst().dropLast()), inList: true)
        }
        if case .stringEnum = declarations[type] { return true }
        return ModelEmitter.scalarTypes.contains(type)
    }

    /// A case name read from a type: `Customer` → `customer`, `[Item]` → `itemList`, `[String: Int]` → `intMap`.
    static func caseName(forType type: String) -> String {
        if type.hasPrefix("[String: ") { return SwiftName.member(String(type.dropFirst(9).dropLast())) + "Map" }
        if type.hasPrefix("[") { return SwiftName.member(String(type.dropFirst().dropLast())) + "List" }
        return SwiftName.member(type)
    }
}
#endif
