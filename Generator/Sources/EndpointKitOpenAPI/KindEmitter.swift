#if OpenAPI
/// Writes the kinds the description's security schemes need beyond those EndpointKit ships.
enum KindEmitter {
    static func write(_ declarations: [KindDeclaration], to out: inout SwiftWriter) {
        var headers: [String] = []
        var queryNames: [String] = []
        for case .apiKey(_, let key, let location, _) in declarations.sorted(by: { $0.name < $1.name }) {
            if location == "header", !headers.contains(key) { headers.append(key) }
            if location == "query", !queryNames.contains(key) { queryNames.append(key) }
        }
        out.line(
            "/// The kinds of this API's security schemes that EndpointKit does not ship, generated from its description."
        )
        out.block("public enum \(KindPlanner.namespace)") { out in
            out.line(
                "/// Every header and query item name this API's keys are sent under, which each kind declares for"
            )
            out.line(
                "/// the calls it makes; pass them to what records traffic below the client, such as a HAR recorder."
            )
            out.line("public static let credentialNames = \(credentialNames(headers: headers, queryItems: queryNames))")
        }
        for declaration in declarations.sorted(by: { $0.name < $1.name }) {
            out.line()
            out.block("extension \(KindPlanner.namespace)") { out in
                switch declaration {
                case .apiKey(let name, let key, let location, let scheme):
                    apiKey(name: name, key: key, location: location, scheme: scheme, to: &out)
                case .anyOf(let name, let alternatives): anyOf(name: name, alternatives, to: &out)
                case .allOf(let name, let parts): allOf(name: name, parts, to: &out)
                }
            }
        }
    }

    /// A `CredentialNames` literal of `headers` and `queryItems`.
    private static func credentialNames(headers: [String], queryItems: [String]) -> String {
        var arguments: [String] = []
        if !headers.isEmpty { arguments.append("headers: [\(headers.map(SwiftName.literal).joined(separator: ", "))]") }
        if !queryItems.isEmpty {
            arguments.append("queryItems: [\(queryItems.map(SwiftName.literal).joined(separator: ", "))]")
        }
        return "CredentialNames(\(arguments.joined(separator: ", ")))"
    }

    /// Declares that a combined kind's credentials go under the names its generated parts declare (the kinds
    /// EndpointKit ships declare none: their credentials go in `Authorization`).
    private static func declareNames(of parts: [KindDeclaration.Part], to out: inout SwiftWriter) {
        let generated = parts.map(\.kind.type).filter { $0.hasPrefix(KindPlanner.namespace + ".") }
        guard let first = generated.first else { return }
        let union = generated.dropFirst().reduce("\(first).credentialNames") { "\($0).union(\($1).credentialNames)" }
        out.line()
        out.line("public static let credentialNames = \(union)")
    }

    /// Writes how an API key is placed in a query item or a cookie, when a kind needs it.
    static func writePlacement(to out: inout SwiftWriter) {
        for line in placement.split(separator: "\n", omittingEmptySubsequences: false) { out.line(String(line)) }
    }

    private static let placement = """
        /// How generated kinds place an API key in a query item or a cookie.
        enum APIKeyPlacement {
            /// Characters sent as they are in a query value; every other byte is percent-encoded.
            private static let unreserved = CharacterSet(
                charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

            struct InvalidKeyError: Error, CustomStringConvertible {
                var description: String
            }

            static func query(_ request: inout URLRequest, name: String, value: String) throws {
                guard let url = request.url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
                    let encodedName = name.addingPercentEncoding(withAllowedCharacters: unreserved),
                    let encodedValue = value.addingPercentEncoding(withAllowedCharacters: unreserved)
                else { throw InvalidKeyError(description: "the API key cannot be placed in the URL's query") }
                let item = "\\(encodedName)=\\(encodedValue)"
                let query = components.percentEncodedQuery ?? ""
                components.percentEncodedQuery = query.isEmpty ? item : query + "&" + item
                guard let placed = components.url else {
                    throw InvalidKeyError(description: "the API key cannot be placed in the URL's query")
                }
                request.url = placed
            }

            static func cookie(_ request: inout URLRequest, name: String, value: String) throws {
                let forbidden = CharacterSet(charactersIn: ";,\\\" ").union(.controlCharacters)
                guard !value.isEmpty, value.rangeOfCharacter(from: forbidden) == nil, value.allSatisfy(\\.isASCII) else {
                    throw InvalidKeyError(description: "an API key sent as a cookie must be ASCII without ; , \\\" or spaces")
                }
                let cookie = "\\(name)=\\(value)"
                let existing = request.value(forHTTPHeaderField: "Cookie").map { $0 + "; " } ?? ""
                try request.setCheckedValue(existing + cookie, for: "Cookie")
            }
        }
        """

    private static func apiKey(name: String, key: String, location: String, scheme: String, to out: inout SwiftWriter) {
        out.line(
            "/// An API key sent as the \(location) `\(key)` (security scheme `\(scheme)`): pass it with `using:`."
        )
        out.block("public enum \(name): EndpointKind") { out in
            // A key in a cookie is redacted as the Cookie header is.
            if location == "header" || location == "query" {
                let names =
                    location == "header"
                    ? credentialNames(headers: [key], queryItems: []) : credentialNames(headers: [], queryItems: [key])
                out.line("public static let credentialNames = \(names)")
                out.line()
            }
            out.block("public static func prepare(_ request: inout URLRequest, with key: AccessToken) throws") { out in
                switch location {
                case "header": out.line("try request.setCheckedValue(key.value, for: \(SwiftName.literal(key)))")
                case "query":
                    out.line("try APIKeyPlacement.query(&request, name: \(SwiftName.literal(key)), value: key.value)")
                default:
                    out.line("try APIKeyPlacement.cookie(&request, name: \(SwiftName.literal(key)), value: key.value)")
                }
            }
        }
    }

    private static func anyOf(name: String, _ alternatives: [KindDeclaration.Part], to out: inout SwiftWriter) {
        let names = alternatives.map { "`\($0.name)`" }.joined(separator: ", ")
        out.line("/// Any one of several credentials (\(names)): the caller picks one with `using:`.")
        out.block("public enum \(name): EndpointKind") { out in
            out.line("/// The credential a call is sent with.")
            out.block("public enum Credential: Sendable") { out in
                for part in alternatives {
                    let payload = part.kind.data.map { "(\($0))" } ?? ""
                    out.line("case \(SwiftName.escaped(part.name))\(payload)")
                }
            }
            for request in ["URLRequest", "TransportRequest"] {
                out.line()
                out.block("public static func prepare(_ request: inout \(request), with credential: Credential) throws")
                { out in
                    out.switchBlock("credential") { out in
                        for part in alternatives {
                            if part.kind.data == nil {
                                out.line("case .\(SwiftName.escaped(part.name)): break")
                            } else {
                                out.line(
                                    "case .\(SwiftName.escaped(part.name))(let value): try \(part.kind.type).prepare(&request, with: value)"
                                )
                            }
                        }
                    }
                }
            }
            declareNames(of: alternatives, to: &out)
            if alternatives.contains(where: { $0.kind == .authenticated }) {
                out.line()
                out.line("public static var requiresAuthentication: Bool { true }")
            }
        }
    }

    private static func allOf(name: String, _ parts: [KindDeclaration.Part], to out: inout SwiftWriter) {
        let names = parts.map { "`\($0.name)`" }.joined(separator: ", ")
        out.line("/// Several credentials at once (\(names)): the caller passes them all with `using:`.")
        out.block("public enum \(name): EndpointKind") { out in
            let held = parts.filter { $0.kind.data != nil }
            out.line("/// The credentials a call is sent with.")
            out.block("public struct Credentials: Sendable") { out in
                for part in held { out.line("public var \(SwiftName.escaped(part.name)): \(part.kind.data ?? "")") }
                out.line()
                // A parameter named `self` would hide the instance in the body: it gets an internal name.
                let inside = { (name: String) in name == "self" ? "selfValue" : SwiftName.escaped(name) }
                let parameters = held.map { part in
                    let label = SwiftName.escaped(part.name) + (part.name == "self" ? " selfValue" : "")
                    return "\(label): \(part.kind.data ?? "")"
                }
                out.block("public init(\(parameters.joined(separator: ", ")))") { out in
                    for part in held { out.line("self.\(SwiftName.escaped(part.name)) = \(inside(part.name))") }
                }
            }
            for request in ["URLRequest", "TransportRequest"] {
                out.line()
                out.block(
                    "public static func prepare(_ request: inout \(request), with credentials: Credentials) throws"
                ) { out in
                    for part in held {
                        out.line(
                            "try \(part.kind.type).prepare(&request, with: credentials.\(SwiftName.escaped(part.name)))"
                        )
                    }
                }
            }
            declareNames(of: parts, to: &out)
            if parts.contains(where: { $0.kind == .authenticated }) {
                out.line()
                out.line("public static var requiresAuthentication: Bool { true }")
            }
        }
    }
}
#endif
