#if OpenAPI
import Foundation
import OpenAPIKit
import OpenAPIKit30
import OpenAPIKitCompat
import Yams

/// An OpenAPI description, read from YAML or JSON: 3.0 descriptions are converted to 3.1 as they are read.
public struct OpenAPIDescription: Sendable {
    /// The description, as OpenAPI 3.1.
    public let document: OpenAPIKit.OpenAPI.Document
    /// What was set right or set aside while reading (``DescriptionRepair``): a bound beyond `Int64`, a 3.0 form
    /// in a 3.1 description. The generator reports each.
    public let setAside: [GenerationNote]

    /// Reads the description in `url` (YAML or JSON).
    public init(contentsOf url: URL) throws {
        try self.init(text: String(decoding: try Data(contentsOf: url), as: UTF8.self))
    }

    /// Reads a description from YAML (or JSON, which is YAML too).
    public init(text: String) throws {
        let version = try Self.version(of: text)
        if version.hasPrefix("3.0") {
            let (document, notes) = try Self.decode(OpenAPIKit30.OpenAPI.Document.self, from: text, isVersion30: true)
            (self.document, setAside) = (document.convert(to: .v3_1_1), notes)
        } else if version.hasPrefix("3.1") || version.hasPrefix("3.2") {
            (document, setAside) = try Self.decode(OpenAPIKit.OpenAPI.Document.self, from: text, isVersion30: false)
        } else {
            throw UnsupportedVersionError(version: version)
        }
    }

    /// Decodes the description, set right where it can be (``DescriptionRepair``), with references into component
    /// schemas inlined first when it has any.
    ///
    /// Vendor extensions (`x-…`) are not read: the generator uses none, and OpenAPIKit reads them by decoding
    /// every schema's whole subtree again, which made reading time grow with depth × size (Stripe's: 11 s).
    private static func decode<Document: Decodable>(_ type: Document.Type, from text: String, isVersion30: Bool)
        throws -> (Document, [GenerationNote])
    {
        let options: [CodingUserInfoKey: any Sendable] = [OpenAPIKit.VendorExtensionsConfiguration.enabledKey: false]
        // Scalars resolved as YAMLDecoder resolves them (only merge keys), and the parser kept alive while its
        // nodes are read, since they hold its anchors weakly.
        let parser = try Parser(yaml: text, resolver: Resolver.basic.appending(.merge))
        return try withExtendedLifetime(parser) {
            let (root, notes) = DescriptionRepair.repaired(try parser.singleRoot() ?? "", isVersion30: isVersion30)
            let node = PointerInlining.isNeeded(in: text) ? PointerInlining.inlined(root) : root
            return (try YAMLDecoder().decode(type, from: node, userInfo: options), notes)
        }
    }

    /// The `openapi` field's value, found without parsing the whole text: a top-level YAML line `openapi: …`,
    /// or a JSON member `"openapi": "…"`.
    private static func version(of text: String) throws -> String {
        let markers = ["\nopenapi:", "\"openapi\":", "\"openapi\" :"]
        let prefixed = text.hasPrefix("openapi:") ? text.startIndex : nil
        let found = prefixed ?? markers.lazy.compactMap { text.range(of: $0)?.upperBound }.first
        guard var index = found else { throw UnsupportedVersionError(version: "none") }
        if prefixed != nil { index = text.index(index, offsetBy: "openapi:".count) }
        let rest = text[index...].prefix { $0 != "\n" && $0 != "," && $0 != "}" }
        let value = rest.trimmingCharacters(in: CharacterSet(charactersIn: " \t\r\"'"))
        guard !value.isEmpty else { throw UnsupportedVersionError(version: "none") }
        return value
    }

    /// The description is not OpenAPI 3.0, 3.1 or 3.2 (Swagger 2.0 is not read).
    public struct UnsupportedVersionError: Error, CustomStringConvertible {
        /// The `openapi` field's value, or `none` when there is none.
        public var version: String
        /// The version found, as the tool prints it.
        public var description: String { "not an OpenAPI 3.0, 3.1 or 3.2 description (openapi: \(version))" }
    }
}
#endif
