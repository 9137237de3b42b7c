#if OpenAPI
/// Writes each operation as a static factory in a constrained extension of `Endpoint`, once per kind.
enum EndpointEmitter {
    static func write(_ plan: OperationPlan, to out: inout SwiftWriter) {
        for kind in plan.kinds {
            out.block("extension Endpoint where Kind == \(kind.type), Response == \(plan.response)") { out in
                documentation(plan, kind: kind, to: &out)
                if plan.isDeprecated {
                    out.line("@available(*, deprecated, message: \"deprecated in the API's description\")")
                }
                let parameters = plan.arguments.map { argument in
                    let type = argument.isOptional ? "\(argument.type)? = nil" : argument.type
                    return "\(SwiftName.escaped(argument.name)): \(type)"
                }
                out.block(
                    "public static func \(SwiftName.escaped(plan.name))(\(parameters.joined(separator: ", "))) -> Self"
                ) { out in
                    body(plan, to: &out)
                }
            }
            out.line()
            writePaging(plan, kind: kind, to: &out)
        }
        writeErrorType(plan, to: &out)
    }

    /// The operation's next-page rule, named after it: `client.pages(for: .getThings(), next: .getThings)`.
    private static func writePaging(_ plan: OperationPlan, kind: KindReference, to out: inout SwiftWriter) {
        guard let paging = plan.paging else { return }
        let rule: String
        let described: String
        switch paging {
        case .link:
            rule = ".link"
            described = "the `Link` header's `rel=\"next\"`"
        case .cursorAfterLast(let parameter, let hasMore, let data, _):
            rule = ".cursor(parameter: \(SwiftName.literal(parameter))) { \(hasMore) ? \(data) : nil }"
            described = "while `has_more`, the last element's `id` as `\(parameter)`"
        case .pageNumber(let parameter, let page, let pages):
            rule = ".pageNumber(parameter: \(SwiftName.literal(parameter))) { \(page) >= \(pages) }"
            described = "page numbers in `\(parameter)`, until `page` reaches `pages`"
        }
        out.block("extension NextPage where Kind == \(kind.type), Value == \(plan.response)") { out in
            out.line("/// The next page of `\(plan.label)`: \(described).")
            out.line("public static var \(SwiftName.escaped(plan.name)): Self { \(rule) }")
        }
        out.line()
    }

    private static func documentation(_ plan: OperationPlan, kind: KindReference, to out: inout SwiftWriter) {
        if let summary = SwiftWriter.firstParagraph(plan.summary, limit: 300) {
            for line in summary { out.line("/// " + line) }
            out.line("///")
        }
        out.line("/// `\(plan.method.uppercased()) \(plan.path)` (`\(plan.label)`).")
        if let server = plan.servers.first {
            out.line("/// The description serves it at `\(server)`, not at the API's first server: send it through an")
            out.line("/// environment whose base URL is that.")
        }
        if kind.data != nil {
            out.line("/// Send it with `using:` and the \(kind.data ?? "credential") of `\(kind.type)`.")
        } else if kind == .authenticated {
            out.line("/// A middleware such as `BearerAuthentication` must add its credentials.")
        }
        errorDocumentation(plan, to: &out)
        if !plan.scopes.isEmpty {
            out.line("/// OAuth 2.0 scopes: \(plan.scopes.map { "`\($0)`" }.joined(separator: ", ")).")
        }
        let documented = plan.arguments.filter { $0.documentation != nil }
        guard !documented.isEmpty else { return }
        out.line("///")
        out.line("/// - Parameters:")
        for argument in documented {
            let text = SwiftWriter.firstParagraph(argument.documentation, limit: 160)?.joined(separator: " ") ?? ""
            out.line("///   - \(argument.name): \(text)")
        }
    }

    /// The documented error bodies, and how to read one from the `EndpointError` a call throws.
    private static func errorDocumentation(_ plan: OperationPlan, to out: inout SwiftWriter) {
        guard !plan.errors.isEmpty else { return }
        let listed = plan.errors.map { "\($0.status) `\($0.type)`" }.joined(separator: ", ")
        let types = Set(plan.errors.map(\.type))
        let statuses = plan.errors.map(\.status)
        let only =
            statuses.contains("default") ? "" : ", statuses: [\(statuses.map { "\"\($0)\"" }.joined(separator: ", "))]"
        let reading =
            types.count == 1
            ? "`error.documentedBody(as: \(plan.errors[0].type).self\(only))`" : "`\(plan.errorTypeName ?? "")(error)`"
        out.line("/// Documented errors: \(listed); read one from the `EndpointError` with \(reading).")
    }

    /// An enum with a case per documented error body, decoded from an `EndpointError` by its status.
    static func writeErrorType(_ plan: OperationPlan, to out: inout SwiftWriter) {
        guard let typeName = plan.errorTypeName else { return }
        let cases = plan.errors.map { error -> (name: String, status: String, type: String) in
            let name = error.status == "default" ? "other" : "status" + error.status
            return (name, error.status, error.type)
        }
        out.line("/// The error bodies `\(plan.label)` documents, by status.")
        out.block("public enum \(typeName): Sendable") { out in
            for item in cases { out.line("case \(item.name)(\(item.type))") }
            out.line()
            out.line(
                "/// Decodes `error`'s body as its status documents; throws when it has none, or it does not decode."
            )
            out.block("public init(_ error: EndpointError) throws") { out in
                out.switchBlock("error.statusCode ?? 0") { out in
                    for item in cases where item.status != "default" {
                        let pattern = Int(item.status).map { "\($0)" } ?? statusRange(item.status)
                        out.line(
                            "case \(pattern): self = .\(item.name)(try error.documentedBody(as: \(item.type).self))"
                        )
                    }
                    if let other = cases.first(where: { $0.status == "default" }) {
                        out.line("default: self = .other(try error.documentedBody(as: \(other.type).self))")
                    } else {
                        out.line("default: throw DocumentedErrorMissing(statusCode: error.statusCode)")
                    }
                }
            }
        }
        out.line()
    }

    private static func statusRange(_ status: String) -> String {
        guard let first = status.first?.wholeNumberValue else { return "nil" }
        return "\(first * 100)..<\(first * 100 + 100)"
    }

    private static func body(_ plan: OperationPlan, to out: inout SwiftWriter) {
        let query = plan.arguments.filter { $0.place == .query || $0.place == .joinedQuery }
        let headers = plan.arguments.filter { $0.place == .header || $0.place == .cookie }
        if !headers.isEmpty {
            out.line("var headers = HTTPHeaders()")
            for argument in headers where argument.place == .header {
                let value = argument.type == "String" ? "value" : "value.description"
                let name = SwiftName.escaped(argument.name)
                out.line(
                    "if let value = \(name) as \(argument.type)? { headers.add(\(value), for: \(SwiftName.literal(argument.key))) }"
                )
            }
            let cookies = headers.filter { $0.place == .cookie }
            if !cookies.isEmpty {
                out.line("var cookies: [String] = []")
                for argument in cookies {
                    let name = SwiftName.escaped(argument.name)
                    out.line(
                        "if let value = \(name) as \(argument.type)? { cookies.append(CookieValue.pair(\(SwiftName.literal(argument.key)), value)) }"
                    )
                }
                out.line("if !cookies.isEmpty { headers.add(cookies.joined(separator: \"; \"), for: \"Cookie\") }")
            }
        }
        let deep = plan.arguments.filter { $0.place == .deepQuery }.map { argument in
            "DeepObjectQuery.items(named: \(SwiftName.literal(argument.key)), \(SwiftName.escaped(argument.name)))"
        }
        var arguments = [method(plan.method), pathExpression(plan)]
        if !query.isEmpty {
            let items = query.map { argument in
                let name = SwiftName.escaped(argument.name)
                let value =
                    argument.place == .joinedQuery
                    ? "\(name)\(argument.isOptional ? "?" : "").queryValues.joined(separator: \",\")" : name
                return "\(SwiftName.literal(argument.key)): \(value)"
            }
            arguments.append("query: [\(items.joined(separator: ", "))]")
        }
        if !deep.isEmpty { arguments.append("queryItems: " + deep.joined(separator: " + ")) }
        if !headers.isEmpty { arguments.append("headers: headers") }
        if let body = plan.body, let argument = plan.arguments.first(where: { $0.place == .body }) {
            let made = bodyExpression(body, value: argument.isOptional ? "$0" : "body")
            arguments.append(argument.isOptional ? "body: body.map { \(made) }" : "body: \(made)")
        }
        let made = "Self.generated(\(arguments.joined(separator: ", ")))"
        var statements = plan.settings?.statements ?? []
        if let group = plan.settings?.outboxGroup {
            statements.append("endpoint.options.outboxGroup = \(interpolated(group, plan, pathStyle: false))")
        }
        if statements.isEmpty {
            out.line(headers.isEmpty ? made : "return " + made)
            return
        }
        out.line("var endpoint = " + made)
        for statement in statements { out.line(statement) }
        out.line("return endpoint")
    }

    private static func bodyExpression(_ body: OperationPlan.Body, value: String) -> String {
        switch body {
        case .json: "JSONBody(\(value), encoder: \(SupportFile.coding).encoder)"
        case .form(let indexed): "FormBody(encoding: \(value)\(indexed ? ", lists: .indexed" : ""))"
        case .multipart: value
        case .data(let contentType): "DataBody(\(value), contentType: \(SwiftName.literal(contentType)))"
        }
    }

    private static func method(_ name: String) -> String {
        ["get", "put", "post", "delete", "options", "head", "patch", "trace"].contains(name)
            ? ".\(name)" : "HTTPMethod(\(SwiftName.literal(name.uppercased())))"
    }

    /// The path as an `EndpointPath` literal: literal text as written, each `{name}` interpolated as its
    /// argument under its name, so that the endpoint's template is the description's.
    static func pathExpression(_ plan: OperationPlan) -> String {
        interpolated(String(plan.path.drop(while: { $0 == "/" })), plan, pathStyle: true)
    }

    /// `template` as a string literal, each `{name}` naming a path parameter interpolated as its argument: under
    /// its name, in an `EndpointPath` (`pathStyle`), or as its text.
    static func interpolated(_ template: String, _ plan: OperationPlan, pathStyle: Bool) -> String {
        let parts = PathTemplate.parts(of: template).map { part in
            switch part {
            case .text(let text): return literalText(text)
            case .name(let key):
                guard let argument = plan.arguments.first(where: { $0.place == .path && $0.key == key }) else {
                    return literalText(Substring("{\(key)}"))
                }
                let name = SwiftName.escaped(argument.name)
                return pathStyle ? "\\(\(name), as: \(SwiftName.literal(key)))" : "\\(\(name))"
            }
        }
        return "\"" + parts.joined() + "\""
    }

    private static func literalText(_ text: Substring) -> String {
        String(SwiftName.literal(String(text)).dropFirst().dropLast())
    }
}
#endif
