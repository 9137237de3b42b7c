#if OpenAPI
import OpenAPIKit

/// Plans the factories of a description's operations: names, arguments, body, response and kinds.
struct OperationPlanner {
    var schemas: SchemaMapper
    var kinds: KindPlanner
    let document: OpenAPI.Document
    /// The overlay: read here alone, where every name it uses is checked against the description.
    private(set) var overlay: OverlayReading
    var notes: [GenerationNote] = []
    /// How many operations were generated public and callable with a token because the description declares no
    /// security.
    private var assumedOptionalToken = 0
    /// Factory names in use; `generated` is the support file's own.
    private var takenNames: Set<String> = ["generated"]

    init(document: OpenAPI.Document, overlay: Overlay) {
        self.document = document
        let declaresNoSecurity = document.components.securitySchemes.isEmpty && document.security.isEmpty
        self.overlay = OverlayReading(overlay, declaresNoSecurity: declaresNoSecurity)
        schemas = SchemaMapper(components: document.components)
        kinds = KindPlanner(
            components: document.components,
            bearerThroughMiddleware: self.overlay.bearerThroughMiddleware
        )
    }

    /// Every operation's plan, in the description's order; what cannot be generated is in ``notes``.
    mutating func plans() -> [OperationPlan] {
        schemas.declareComponents()
        var result: [OperationPlan] = []
        for (path, item) in document.paths {
            guard let item = document.components[item] else { continue }
            for endpoint in item.endpoints {
                let label = endpoint.operation.operationId ?? "\(endpoint.method.rawValue) \(path.rawValue)"
                switch plan(endpoint, path: path.rawValue, shared: item.parameters, label: label) {
                case .success(var plan):
                    plan.servers = ownServers(endpoint.operation.servers ?? item.servers ?? [])
                    result.append(plan)
                case .failure(let issue):
                    notes.append(GenerationNote(operation: label, issue: issue, operationSkipped: true))
                }
            }
        }
        notes += overlay.unmatched()
        if assumedOptionalToken > 0 {
            let issue = GenerationIssue.assumed(
                "the description declares no security: "
                    + (assumedOptionalToken == 1 ? "1 operation is" : "\(assumedOptionalToken) operations are")
                    + " public and callable with a bearer token too; kinds: { every: bearer } in the overlay makes the "
                    + "token required"
            )
            notes.append(GenerationNote(operation: "security", issue: issue, operationSkipped: false))
        }
        return result
    }

    /// Why a GET or HEAD operation's body is left out, and whether that leaves the operation out too; `nil` when
    /// it has none, or one that can hold nothing.
    private func uncarriedBody(of operation: OpenAPI.Operation, method: String) -> (
        issue: GenerationIssue, required: Bool
    )? {
        guard let request = operation.requestBody.flatMap({ document.components[$0] }), !holdsNothing(request) else {
            return nil
        }
        return (.unsupported("a \(method) request carries no body"), request.required)
    }

    /// Whether every content of `request` is an object with no properties that allows no others: a body that can
    /// hold nothing, left out without a note.
    private func holdsNothing(_ request: OpenAPI.Request) -> Bool {
        request.content.values.allSatisfy { value in
            guard let schema = document.components[value]?.schema, let resolved = schemas.resolved(schema),
                case .object(_, let object) = resolved.value
            else { return false }
            return object.properties.isEmpty && object.additionalProperties == .a(false)
        }
    }

    /// `servers` unless they are the API's own first server.
    private func ownServers(_ servers: [OpenAPI.Server]) -> [String] {
        let own = servers.map { $0.urlTemplate.absoluteString }
        return own.isEmpty || own.first == document.servers.first?.urlTemplate.absoluteString ? [] : own
    }

    private mutating func plan(
        _ endpoint: OpenAPI.PathItem.Endpoint,
        path: String,
        shared: OpenAPI.Parameter.Array,
        label: String
    ) -> Result<OperationPlan, GenerationIssue> {
        let operation = endpoint.operation
        let said = overlay.operation(label: label, operationID: operation.operationId)
        var settings = said.settings
        let decided = kinds.kinds(
            named: said.kind,
            requirements: operation.security,
            documentRequirements: document.security
        )
        let operationKinds: [KindReference]
        switch decided {
        case .success(let (kinds, decision)):
            operationKinds = kinds
            if decision == .noSecurityDeclared { assumedOptionalToken += 1 }
        case .failure(let issue): return .failure(issue)
        }
        let name = factoryName(settings?.name ?? operation.operationId, method: endpoint.method.rawValue, path: path)
        var arguments: [OperationPlan.Argument] = []
        var taken: Set<String> = ["body"]
        for parameter in Self.merged(shared, operation.parameters, in: document.components) {
            switch argument(for: parameter, in: name, taken: &taken) {
            case .success(let argument): arguments.append(argument)
            case .failure(let issue):
                if parameter.required || parameter.location == .path { return .failure(issue) }
                notes.append(GenerationNote(operation: label, issue: issue, operationSkipped: false))
            }
        }
        // EndpointKit sends no body with GET or HEAD (Stripe's GETs declare an optional, empty form).
        let carriesBody = endpoint.method != .get && endpoint.method != .head
        if !carriesBody, let left = uncarriedBody(of: operation, method: endpoint.method.rawValue) {
            if left.required { return .failure(left.issue) }
            notes.append(GenerationNote(operation: label, issue: left.issue, operationSkipped: false))
        }
        let body = carriesBody ? requestBody(operation, name: name) : (argument: nil, kind: nil)
        if let argument = body.argument { arguments.append(argument) }
        checkGroup(of: &settings, arguments: arguments, label: label)
        let errors = errorBodies(operation, name: name)
        let errorTypeName = Set(errors.map(\.type)).count > 1 ? schemas.claim(SwiftName.type(name) + "Error") : nil
        let responseType = response(operation, name: name, label: label)
        return .success(
            OperationPlan(
                name: name,
                label: label,
                method: endpoint.method.rawValue.lowercased(),
                path: path,
                arguments: Self.ordered(arguments),
                body: body.kind,
                response: responseType,
                kinds: operationKinds,
                scopes: KindPlanner.scopes(operation.security ?? document.security),
                summary: operation.summary ?? operation.description,
                isDeprecated: operation.deprecated,
                errors: errors,
                errorTypeName: errorTypeName,
                settings: settings,
                paging: paging(operation, response: responseType, arguments: arguments)
            )
        )
    }

    /// Drops the overlay's outbox group of `settings`, and says so, when it names what is no path parameter.
    private mutating func checkGroup(
        of settings: inout Overlay.OperationSettings?,
        arguments: [OperationPlan.Argument],
        label: String
    ) {
        guard let group = settings?.outboxGroup, let unknown = Self.unknownNames(in: group, arguments: arguments)
        else { return }
        let issue = GenerationIssue.overlay("outboxGroup names \(unknown), not a path parameter: no group is set")
        notes.append(GenerationNote(operation: label, issue: issue, operationSkipped: false))
        settings?.outboxGroup = nil
    }

    /// The first `{name}` in `template` that is no path parameter among `arguments`, braces included.
    static func unknownNames(in template: String, arguments: [OperationPlan.Argument]) -> String? {
        let keys = Set(arguments.filter { $0.place == .path }.map(\.key))
        for case .name(let name) in PathTemplate.parts(of: template) where !keys.contains(name) {
            return "{\(name)}"
        }
        return nil
    }

    /// A unique factory name from the `operationId`, or from the method and path when there is none; a name
    /// taken already gets the first free number, in the description's order.
    private mutating func factoryName(_ operationID: String?, method: String, path: String) -> String {
        let base = SwiftName.member(operationID ?? "\(method) \(path)")
        return SchemaMapper.unique(base, in: &takenNames)
    }

    /// Path-level parameters, then the operation's own, an operation's parameter replacing a path-level one of
    /// the same name and place.
    private static func merged(
        _ shared: OpenAPI.Parameter.Array,
        _ own: OpenAPI.Parameter.Array,
        in components: OpenAPI.Components
    ) -> [OpenAPI.Parameter] {
        let ownResolved = own.compactMap { components[$0] }
        let sharedResolved = shared.compactMap { components[$0] }.filter { parameter in
            !ownResolved.contains { $0.name == parameter.name && $0.location == parameter.location }
        }
        return sharedResolved + ownResolved
    }

    /// Path arguments first (in the path's order, as given), then required ones, then optional ones.
    private static func ordered(_ arguments: [OperationPlan.Argument]) -> [OperationPlan.Argument] {
        arguments.filter { $0.place == .path } + arguments.filter { $0.place != .path && !$0.isOptional }
            + arguments.filter { $0.place != .path && $0.isOptional }
    }
}
#endif
