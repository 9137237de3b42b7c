#if OpenAPI
import OpenAPIKit

extension OperationPlanner {
    /// The factory argument for `parameter`, or why it cannot be typed.
    mutating func argument(
        for parameter: OpenAPI.Parameter,
        in operation: String,
        taken: inout Set<String>
    ) -> Result<OperationPlan.Argument, GenerationIssue> {
        guard case .a(let context) = parameter.schemaOrContent else {
            return .failure(.unsupported("parameter \"\(parameter.name)\" is described by content, not a schema"))
        }
        let schema: JSONSchema
        switch context.schema {
        case .a(let reference): schema = .reference(reference.jsonReference, .init())
        case .b(let inline): schema = inline
        }
        let place: OperationPlan.Argument.Place
        switch parameter.location {
        case .path: place = .path
        case .query: place = .query
        case .header: place = .header
        case .cookie: place = .cookie
        case .querystring:
            return .failure(.unsupported("parameter \"\(parameter.name)\" is a whole query string"))
        }
        var type = schemas.type(of: schema, suggested: SwiftName.type(operation) + SwiftName.type(parameter.name))
        if type == "Date" { type = "String" }
        var argumentPlace = place
        // A list of text in an exploded query repeats its name; in `deepObject` style it is indexed like an object.
        let repeatedList = place == .query && context.style != .deepObject && context.explode && isScalarList(type)
        // A union of scalars is sent as its value's text in a path or a query.
        let scalarUnion = (place == .path || place == .query) && isScalarUnion(type)
        // A union with lists of text among its alternatives (a string or a list of strings) is sent as one item, or
        // one per element, in an exploded query.
        let listUnion = place == .query && context.style != .deepObject && context.explode && isQueryTextUnion(type)
        // A list of text in a query that is not exploded is one item, its values joined by commas (Twitter's `ids`).
        let joinedList = place == .query && context.style == .form && !context.explode && isScalarList(type)
        if joinedList { argumentPlace = .joinedQuery }
        if !isScalar(type) && !repeatedList && !scalarUnion && !listUnion && !joinedList {
            guard place == .query, context.style == .deepObject else {
                return .failure(
                    .unsupported("\(parameter.location.rawValue) parameter \"\(parameter.name)\" of type \(type)")
                )
            }
            argumentPlace = .deepQuery
        }
        return .success(
            OperationPlan.Argument(
                key: parameter.name,
                name: SchemaMapper.unique(SwiftName.member(parameter.name), in: &taken),
                type: type,
                isOptional: !parameter.required,
                place: argumentPlace,
                documentation: parameter.description
            )
        )
    }

    /// The request body's argument and how it is sent: JSON first, then a form, multipart, and any other
    /// content as bytes.
    mutating func requestBody(
        _ operation: OpenAPI.Operation,
        name: String
    ) -> (argument: OperationPlan.Argument?, kind: OperationPlan.Body?) {
        guard let request = operation.requestBody.flatMap({ document.components[$0] }) else { return (nil, nil) }
        let contents = request.content.compactMap { key, value in document.components[value].map { (key, $0) } }
        func argument(_ type: String) -> OperationPlan.Argument {
            OperationPlan.Argument(
                key: "body",
                name: "body",
                type: type,
                isOptional: !request.required,
                place: .body,
                documentation: request.description
            )
        }
        let suggested = SwiftName.type(name) + "Request"
        if let (_, content) = contents.first(where: { Self.isJSON($0.0.rawValue) }) {
            let type = content.schema.map { schemas.type(of: $0, suggested: suggested) } ?? SupportFile.jsonValue
            return (argument(type), .json)
        }
        if let (_, content) = contents.first(where: { $0.0.rawValue.hasPrefix("application/x-www-form-urlencoded") }) {
            let type = content.schema.map { schemas.type(of: $0, suggested: suggested) } ?? SupportFile.jsonObject
            let indexed = content.encodingMap?.values.contains { $0.style == .deepObject } ?? false
            return (argument(type), .form(indexed: indexed))
        }
        if contents.contains(where: { $0.0.rawValue.hasPrefix("multipart/") }) {
            return (argument("MultipartBody"), .multipart)
        }
        if let (contentType, _) = contents.first {
            return (argument("Data"), .data(contentType: contentType.rawValue))
        }
        return (nil, nil)
    }

    /// The type of the first success response's body: a JSON schema's type, `Data` for other content, and
    /// `EmptyResponse` when it has none. Other forms of a JSON answer (`text/event-stream`, XML) are left out, and
    /// said so.
    mutating func response(_ operation: OpenAPI.Operation, name: String, label: String) -> String {
        let success = operation.responses.first { status, _ in status.isSuccess }
        guard let (_, value) = success, let response = document.components[value] else { return "EmptyResponse" }
        let contents = response.content.compactMap { key, value in document.components[value].map { (key, $0) } }
        if let (_, content) = contents.first(where: { Self.isJSON($0.0.rawValue) }) {
            let others = contents.map(\.0.rawValue).filter { !Self.isJSON($0) }.sorted()
            if !others.isEmpty {
                let issue = GenerationIssue.unsupported(
                    "its answer as \(others.joined(separator: ", ")) is left out: the factory reads the JSON form "
                        + "(declare an endpoint by hand to read the other, e.g. with stream(for:))"
                )
                notes.append(GenerationNote(operation: label, issue: issue, operationSkipped: false))
            }
            return content.schema.map { schemas.type(of: $0, suggested: SwiftName.type(name) + "Response") }
                ?? SupportFile.jsonValue
        }
        return contents.isEmpty ? "EmptyResponse" : "Data"
    }

    /// The JSON bodies of the operation's responses outside 2xx, by status.
    mutating func errorBodies(_ operation: OpenAPI.Operation, name: String) -> [OperationPlan.ErrorBody] {
        var result: [OperationPlan.ErrorBody] = []
        for (status, value) in operation.responses where !status.isSuccess {
            guard let response = document.components[value] else { continue }
            let contents = response.content.compactMap { key, value in document.components[value].map { (key, $0) } }
            guard let (_, content) = contents.first(where: { Self.isJSON($0.0.rawValue) }), let schema = content.schema
            else { continue }
            let label = status.rawValue.lowercased() == "default" ? "default" : status.rawValue.uppercased()
            let suffix = label == "default" ? "Default" : label
            let type = schemas.type(of: schema, suggested: SwiftName.type(name) + "Error" + suffix)
            result.append(OperationPlan.ErrorBody(status: label, type: type))
        }
        return result
    }

    static func isJSON(_ contentType: String) -> Bool {
        let type = contentType.split(separator: ";").first.map(String.init) ?? contentType
        return type == "application/json" || type.hasSuffix("+json")
    }

    /// Whether `type` is sent as one query item or header value: a number, text, a truth value, or a generated
    /// string enum (also through an alias).
    private func isScalar(_ type: String) -> Bool {
        if ["String", "Int", "Int64", "Double", "Float", "Bool"].contains(type) { return true }
        switch schemas.declarations[type] {
        case .stringEnum: return true
        case .alias(_, let target, _): return target != type && isScalar(target)
        default: return false
        }
    }

    /// Whether `type` is a generated union of numbers, text and truth values (an integer or a string).
    private func isScalarUnion(_ type: String) -> Bool {
        guard case .union(let model) = schemas.declarations[type] else { return false }
        return model.alternatives.allSatisfy { ModelEmitter.scalarTypes.contains($0.type) }
    }

    /// Whether `type` is a generated union whose alternatives are text or lists of text.
    private func isQueryTextUnion(_ type: String) -> Bool {
        guard case .union(let model) = schemas.declarations[type] else { return false }
        return model.isQueryText
    }

    private func isScalarList(_ type: String) -> Bool {
        type.hasPrefix("[") && !type.contains(":") && isScalar(String(type.dropFirst().dropLast()))
    }
}

#endif
