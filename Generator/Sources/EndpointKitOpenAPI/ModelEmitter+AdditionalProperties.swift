#if OpenAPI
/// The coding of a model whose schema has `additionalProperties` beside its `properties`: the declared members as
/// the compiler would code them, and every other member of the object in one dictionary, so that none is lost.
extension ModelEmitter {
    /// The name of the dictionary of undeclared members: `additionalProperties`, or with a number after it when a
    /// declared member has that name.
    static func extrasName(_ model: ObjectModel) -> String {
        var taken = Set(model.properties.map(\.name))
        return SchemaMapper.unique("additionalProperties", in: &taken)
    }

    /// `init(from:)` and `encode(to:)`: declared keys through `CodingKeys`, the others through the support file's
    /// `AdditionalProperties`, which skips the declared keys both ways.
    static func additionalCoding(_ model: ObjectModel, to out: inout SwiftWriter) {
        guard let values = model.additionalValues else { return }
        let extras = extrasName(model)
        let declared = "Set(CodingKeys.allCases.map(\\.stringValue))"
        out.block("public init(from decoder: any Decoder) throws") { out in
            out.line("let container = try decoder.container(keyedBy: CodingKeys.self)")
            for property in model.properties {
                let name = SwiftName.escaped(property.name)
                let method = property.isOptional ? "decodeIfPresent" : "decode"
                out.line("self.\(name) = try container.\(method)(\(property.type).self, forKey: .\(name))")
            }
            out.line(
                "self.\(extras) = try AdditionalProperties.decode(\(values).self, from: decoder, except: \(declared))"
            )
        }
        out.block("public func encode(to encoder: any Encoder) throws") { out in
            out.line("var container = encoder.container(keyedBy: CodingKeys.self)")
            for property in model.properties {
                let name = SwiftName.escaped(property.name)
                let method = property.isOptional ? "encodeIfPresent" : "encode"
                out.line("try container.\(method)(self.\(name), forKey: .\(name))")
            }
            out.line("try AdditionalProperties.encode(self.\(extras), to: encoder, except: \(declared))")
        }
    }
}
#endif
