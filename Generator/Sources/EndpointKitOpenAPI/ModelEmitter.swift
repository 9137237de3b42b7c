#if OpenAPI
/// Writes the models' Swift source: structs (or final classes), open enums, unions and aliases.
enum ModelEmitter {
    static func write(_ declaration: ModelDeclaration, to out: inout SwiftWriter) {
        switch declaration {
        case .object(let model): object(model, to: &out)
        case .stringEnum(let name, let values, let documentation):
            stringEnum(name: name, values: values, documentation: documentation, to: &out)
        case .union(let model): union(model, to: &out)
        case .alias(let name, let target, let documentation):
            out.documentation(documentation)
            out.line("public typealias \(name) = \(target)")
        }
        out.line()
    }

    private static func object(_ model: ObjectModel, to out: inout SwiftWriter) {
        out.documentation(model.documentation)
        let declaration = model.isReference ? "public final class" : "public struct"
        let identifiable = model.isIdentifiable ? ", Identifiable" : ""
        out.block("\(declaration) \(model.name): Codable, Sendable\(identifiable)") { out in
            for property in model.properties {
                out.documentation(property.documentation, limit: 160)
                let optional = property.isOptional ? "?" : ""
                let keyword = model.isReference ? "let" : "var"
                out.line("public \(keyword) \(SwiftName.escaped(property.name)): \(property.type)\(optional)")
            }
            if let values = model.additionalValues {
                out.line("/// The object's members the description does not declare, by key.")
                out.line("public \(model.isReference ? "let" : "var") \(extrasName(model)): [String: \(values)]")
            }
            if let identifier = model.identifier, identifier != "id",
                let property = model.properties.first(where: { $0.name == identifier })
            {
                out.line("/// The model's ID for a `ModelLoader`: its member the overlay names.")
                out.line("public var id: \(property.type) { \(SwiftName.escaped(identifier)) }")
            }
            initializer(model, to: &out)
            if model.properties.contains(where: { $0.key != $0.name }) || model.additionalValues != nil {
                let iterable = model.additionalValues == nil ? "" : ", CaseIterable"
                out.block("enum CodingKeys: String, CodingKey\(iterable)") { out in
                    let keys = model.properties.map { property in
                        let name = SwiftName.escaped(property.name)
                        return property.key == property.name ? name : "\(name) = \(SwiftName.literal(property.key))"
                    }
                    out.list(keys, prefix: "case ")
                }
            }
            if model.additionalValues != nil { additionalCoding(model, to: &out) }
        }
    }

    private static func initializer(_ model: ObjectModel, to out: inout SwiftWriter) {
        // A parameter named `self` would hide the instance in the body: it gets an internal name of its own.
        var taken = Set(model.properties.map(\.name))
        let inside = SchemaMapper.unique("selfValue", in: &taken)
        var parameters = model.properties.map { property in
            let label = SwiftName.escaped(property.name) + (property.name == "self" ? " \(inside)" : "")
            return property.isOptional ? "\(label): \(property.type)? = nil" : "\(label): \(property.type)"
        }
        var assignments = model.properties.map { property in
            let name = SwiftName.escaped(property.name)
            return "self.\(name) = \(property.name == "self" ? inside : name)"
        }
        if let values = model.additionalValues {
            parameters.append("\(extrasName(model)): [String: \(values)] = [:]")
            assignments.append("self.\(extrasName(model)) = \(extrasName(model))")
        }
        out.block("public init(\(parameters.joined(separator: ", ")))") { out in
            for assignment in assignments { out.line(assignment) }
        }
    }

    private static func stringEnum(name: String, values: [String], documentation: String?, to out: inout SwiftWriter) {
        if !out.documentation(documentation) {
            out.line(
                "/// Open: a value the description does not list decodes as `unknown` and is sent back as it came."
            )
        }
        var taken: Set<String> = [
            "unknown", "listed", "listedValues", "unknownValue", "rawValue", "description", "hashValue", "queryValues",
        ]
        let cases = values.map { value in
            (value: value, name: SchemaMapper.unique(SwiftName.member(value.isEmpty ? "empty" : value), in: &taken))
        }
        let names = cases.map { SwiftName.escaped($0.name) }
        out.block("public enum \(name): OpenEnum") { out in
            out.line("case \(names.joined(separator: ", "))")
            out.line("case unknown(String)")
            out.line("public static let listed: [Self] = [\(names.map { "." + $0 }.joined(separator: ", "))]")
            out.line(
                "public static let listedValues: [String] = [\(cases.map { SwiftName.literal($0.value) }.joined(separator: ", "))]"
            )
            out.line("public var unknownValue: String? { if case .unknown(let value) = self { value } else { nil } }")
        }
    }

    /// The Swift types a union of which is written as text: in a path, as a query item.
    static let scalarTypes: Set<String> = ["String", "Int", "Int32", "Int64", "Double", "Float", "Bool"]

    /// A union of scalars (GitHub's `workflow_id`: an integer or a string) is its value's text in a path or a query.
    private static func scalarText(_ model: UnionModel, to out: inout SwiftWriter) {
        out.line()
        out.block("extension \(model.name): CustomStringConvertible, QueryValue") { out in
            out.line("/// The value's text, as a path segment or a query item sends it.")
            valueSwitch(model, "public var description: String", to: &out) { _ in "\"\\(value)\"" }
            out.line("/// The value's text, one query item.")
            out.line("public var queryValues: [String] { [description] }")
        }
    }

    /// A union of text and lists of text (GitHub's `fields`) is one query item, or one per element of a list.
    private static func queryItems(_ model: UnionModel, to out: inout SwiftWriter) {
        out.line()
        out.block("extension \(model.name): QueryValue") { out in
            out.line("/// One query item for a single value, one per element for a list.")
            valueSwitch(model, "public var queryValues: [String]", to: &out) { alternative in
                alternative.type.hasPrefix("[") ? "value.map { \"\\($0)\" }" : "[\"\\(value)\"]"
            }
        }
    }

    /// `declaration` (a computed property) as a switch over the union's cases, each case's `value` written as
    /// `text` gives for its alternative.
    private static func valueSwitch(
        _ model: UnionModel,
        _ declaration: String,
        to out: inout SwiftWriter,
        text: (UnionModel.Alternative) -> String
    ) {
        out.block(declaration) { out in
            out.switchBlock("self") { out in
                for alternative in model.alternatives {
                    out.line("case .\(SwiftName.escaped(alternative.caseName))(let value): \(text(alternative))")
                }
            }
        }
    }

    private static func union(_ model: UnionModel, to out: inout SwiftWriter) {
        defer {
            if model.alternatives.allSatisfy({ scalarTypes.contains($0.type) }) {
                scalarText(model, to: &out)
            } else if model.isQueryText {
                queryItems(model, to: &out)
            }
        }
        if !out.documentation(model.documentation) {
            out.line(
                "/// One of several shapes: decoded as the first that decodes"
                    + (model.discriminatorKey == nil ? "." : ", or as the one its discriminator names.")
            )
        }
        out.block("public indirect enum \(model.name): Codable, Sendable") { out in
            for alternative in model.alternatives {
                out.line("case \(SwiftName.escaped(alternative.caseName))(\(alternative.type))")
            }
            out.block("public init(from decoder: any Decoder) throws") { out in
                if let key = model.discriminatorKey { discriminated(model, key: key, to: &out) }
                out.line("let container = try decoder.singleValueContainer()")
                for (index, alternative) in model.alternatives.enumerated() {
                    let keyword = index == 0 ? "if" : "} else if"
                    out.line("\(keyword) let value = try? container.decode(\(alternative.type).self) {")
                    out.line("    self = .\(SwiftName.escaped(alternative.caseName))(value)")
                }
                out.line("} else {")
                out.line("    throw DecodingError.dataCorrupted(")
                out.line(
                    "        .init(codingPath: decoder.codingPath, debugDescription: \"no shape of \(model.name) matches\"))"
                )
                out.line("}")
            }
            out.block("public func encode(to encoder: any Encoder) throws") { out in
                out.line("var container = encoder.singleValueContainer()")
                out.switchBlock("self") { out in
                    for alternative in model.alternatives {
                        out.line(
                            "case .\(SwiftName.escaped(alternative.caseName))(let value): try container.encode(value)"
                        )
                    }
                }
            }
        }
    }

    /// Decodes the alternative the discriminator names, when it names one.
    private static func discriminated(_ model: UnionModel, key: String, to out: inout SwiftWriter) {
        let named = model.alternatives.filter { !$0.discriminatorValues.isEmpty }
        guard !named.isEmpty else { return }
        out.block("enum DiscriminatorKey: String, CodingKey") { out in
            out.line("case value = \(SwiftName.literal(key))")
        }
        out.line("let tag = try? decoder.container(keyedBy: DiscriminatorKey.self).decode(String.self, forKey: .value)")
        out.switchBlock("tag") { out in
            for alternative in named {
                let values = alternative.discriminatorValues.map(SwiftName.literal).joined(separator: ", ")
                out.line(
                    "case \(values): self = .\(SwiftName.escaped(alternative.caseName))(try \(alternative.type)(from: decoder))"
                )
                out.line("    return")
            }
            out.line("default: break")
        }
    }
}
#endif
