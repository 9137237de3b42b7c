#if OpenAPI
import OpenAPIKit

/// A kind an endpoint is generated with: its Swift type and the type of its request data (`nil`: `Void`, sent
/// without `using:`).
struct KindReference: Hashable, Sendable {
    var type: String
    var data: String?

    static let `public` = KindReference(type: "EndpointKinds.Public", data: nil)
    static let bearer = KindReference(type: "EndpointKinds.Private", data: "AccessToken")
    static let basic = KindReference(type: "EndpointKinds.Basic", data: "BasicCredentials")
    static let authenticated = KindReference(type: "EndpointKinds.Authenticated", data: nil)
}

/// A kind the generator writes, because no kind EndpointKit ships says what a scheme or a combination needs.
enum KindDeclaration: Hashable, Sendable {
    /// An API key placed in a header, a query item or a cookie under `key`.
    case apiKey(name: String, key: String, location: String, scheme: String)
    /// One of several credentials, picked by the caller: an enum of request data.
    case anyOf(name: String, alternatives: [Part])
    /// Every one of several credentials at once: a struct of request data.
    case allOf(name: String, parts: [Part])

    /// A credential of a combined kind: its case or property name and the kind that applies it.
    struct Part: Hashable, Sendable {
        var name: String
        var kind: KindReference
    }

    var name: String {
        switch self {
        case .apiKey(let name, _, _, _), .anyOf(let name, _), .allOf(let name, _): name
        }
    }
}

/// Decides the kinds of each operation from its security requirements, declaring the kinds it needs.
struct KindPlanner {
    /// The namespace generated kinds are declared in.
    static let namespace = "SecurityKinds"

    let schemes: [String: OpenAPI.SecurityScheme]
    /// The Swift type name of each scheme's kind: unique (`api-key` and `api_key` are two kinds), and never a name
    /// Swift or the generated code reserves (`Self`, `Type`, `Protocol`, `Any` get `Scheme` after them).
    let typeNames: [String: String]
    /// Whether a bearer or OAuth 2.0 scheme becomes `EndpointKinds.Authenticated` (the overlay's
    /// `bearerTokens: middleware`) rather than `EndpointKinds.Private`.
    let bearerThroughMiddleware: Bool
    private(set) var declarations: [String: KindDeclaration] = [:]

    init(components: OpenAPI.Components, bearerThroughMiddleware: Bool) {
        var schemes: [String: OpenAPI.SecurityScheme] = [:]
        for (key, value) in components.securitySchemes {
            if let scheme = components[value] { schemes[key.rawValue] = scheme }
        }
        self.schemes = schemes
        var taken = Set<String>()
        typeNames = Dictionary(
            uniqueKeysWithValues: schemes.keys.sorted().map { name in
                (name, SchemaMapper.unique(SchemaMapper.unreserved(SwiftName.type(name), suffix: "Scheme"), in: &taken))
            }
        )
        self.bearerThroughMiddleware = bearerThroughMiddleware
    }

    /// How an operation's kinds were decided.
    enum Decision: Equatable {
        /// From the description's security requirements, or a kind the overlay named.
        case stated
        /// The description declares no security at all: public, and callable with a bearer token too.
        case noSecurityDeclared
    }

    /// The kinds to generate an operation with (two when its security is optional: the public one too), or why
    /// none can be decided. `named` is the overlay's kind for the operation, over what the description says; a
    /// name ending in `?` (`bearer?`) makes its credential optional: the public kind is generated beside it.
    mutating func kinds(
        named: String?,
        requirements: [OpenAPI.SecurityRequirement]?,
        documentRequirements: [OpenAPI.SecurityRequirement]
    ) -> Result<(kinds: [KindReference], decision: Decision), GenerationIssue> {
        if let named {
            return optionalKind(named: named).map { ($0, .stated) }
        }
        let effective = requirements ?? documentRequirements
        // OpenAPI reads an absent `security` as no requirement; such APIs mostly serve both ways, so the token is
        // optional rather than refused.
        if schemes.isEmpty && effective.isEmpty { return .success(([.public, .bearer], .noSecurityDeclared)) }
        if effective.isEmpty { return .success(([.public], .stated)) }
        var alternatives: [KindReference] = []
        var isOptional = false
        for requirement in effective {
            let names = requirement.keys.compactMap(\.name).sorted()
            if names.isEmpty {
                isOptional = true
                continue
            }
            switch allOf(names) {
            case .success(let kind): if !alternatives.contains(kind) { alternatives.append(kind) }
            case .failure(let issue): return .failure(issue)
            }
        }
        var kinds: [KindReference] = isOptional ? [.public] : []
        if alternatives.count == 1 {
            kinds.append(alternatives[0])
        } else if alternatives.count > 1 {
            kinds.append(anyOf(alternatives))
        }
        return .success((kinds, .stated))
    }

    /// The kinds an overlay's kind name stands for: `bearer` one, `bearer?` the public one and it.
    private mutating func optionalKind(named name: String) -> Result<[KindReference], GenerationIssue> {
        guard name.hasSuffix("?") else { return kind(named: name).map { [$0] } }
        return kind(named: String(name.dropLast())).map { $0 == .public ? [.public] : [.public, $0] }
    }

    /// The OAuth 2.0 scopes `requirements` name, for the factory's documentation.
    static func scopes(_ requirements: [OpenAPI.SecurityRequirement]) -> [String] {
        var seen = Set<String>()
        return requirements.flatMap { $0.values.flatMap { $0 } }.filter { seen.insert($0).inserted }
    }

    // MARK: Schemes and combinations

    private mutating func kind(named name: String) -> Result<KindReference, GenerationIssue> {
        switch name {
        case "public": .success(.public)
        case "bearer": .success(.bearer)
        case "basic": .success(.basic)
        case "authenticated", "middleware": .success(.authenticated)
        default: scheme(name)
        }
    }

    private mutating func scheme(_ name: String) -> Result<KindReference, GenerationIssue> {
        guard let scheme = schemes[name] else {
            return .failure(.undecidedKind("security scheme \"\(name)\" is not declared"))
        }
        let bearer = bearerThroughMiddleware ? KindReference.authenticated : .bearer
        switch scheme.type {
        case .http(let httpScheme, _):
            switch httpScheme.lowercased() {
            case "bearer": return .success(bearer)
            case "basic": return .success(.basic)
            default: return .failure(.undecidedKind("HTTP scheme \"\(httpScheme)\" of \"\(name)\" has no kind"))
            }
        case .oauth2, .openIdConnect:
            return .success(bearer)
        case .apiKey(let key, let location):
            let typeName = typeNames[name] ?? SwiftName.type(name)
            declarations[typeName] = .apiKey(name: typeName, key: key, location: location.rawValue, scheme: name)
            return .success(KindReference(type: "\(Self.namespace).\(typeName)", data: "AccessToken"))
        case .mutualTLS:
            return .failure(.undecidedKind("mutual TLS (\"\(name)\") has no kind: the transport's TLS settings own it"))
        }
    }

    /// One scheme's kind, or a kind that needs every scheme in `names` at once.
    private mutating func allOf(_ names: [String]) -> Result<KindReference, GenerationIssue> {
        var parts: [KindDeclaration.Part] = []
        var taken = Set<String>()
        for name in names {
            switch scheme(name) {
            case .success(let kind):
                parts.append(
                    KindDeclaration.Part(name: SchemaMapper.unique(SwiftName.member(name), in: &taken), kind: kind)
                )
            case .failure(let issue): return .failure(issue)
            }
        }
        if parts.count == 1 { return .success(parts[0].kind) }
        let typeName = names.map { typeNames[$0] ?? SwiftName.type($0) }.joined(separator: "And")
        declarations[typeName] = .allOf(name: typeName, parts: parts)
        return .success(
            KindReference(type: "\(Self.namespace).\(typeName)", data: "\(Self.namespace).\(typeName).Credentials")
        )
    }

    /// A kind whose caller supplies one of `alternatives`.
    private mutating func anyOf(_ alternatives: [KindReference]) -> KindReference {
        var taken = Set<String>()
        let parts = alternatives.map { kind in
            KindDeclaration.Part(name: SchemaMapper.unique(Self.caseName(of: kind), in: &taken), kind: kind)
        }
        let typeName = parts.map { SwiftName.type($0.name) }.joined(separator: "Or")
        declarations[typeName] = .anyOf(name: typeName, alternatives: parts)
        return KindReference(type: "\(Self.namespace).\(typeName)", data: "\(Self.namespace).\(typeName).Credential")
    }

    private static func caseName(of kind: KindReference) -> String {
        switch kind {
        case .bearer: "bearer"
        case .basic: "basic"
        case .authenticated: "authenticated"
        default: SwiftName.member(String(kind.type.split(separator: ".").last ?? "credential"))
        }
    }
}
#endif
