#if OpenAPI
/// Renames generated types wherever a plan or a model names them (`[IssuesListDirection]?` → `[Direction]?`): the
/// names ``SchemaMapper/sharedNames()`` gives the models several uses share.
struct TypeRenaming {
    let names: [String: String]

    /// `type` with each identifier in it renamed.
    func callAsFunction(_ type: String) -> String {
        guard !names.isEmpty else { return type }
        var result = ""
        var identifier = ""
        for character in type {
            if character.isLetter || character.isNumber || character == "_" {
                identifier.append(character)
            } else {
                result += names[identifier] ?? identifier
                identifier = ""
                result.append(character)
            }
        }
        return result + (names[identifier] ?? identifier)
    }

    func callAsFunction(_ plan: OperationPlan) -> OperationPlan {
        var plan = plan
        for index in plan.arguments.indices { plan.arguments[index].type = self(plan.arguments[index].type) }
        plan.response = self(plan.response)
        for index in plan.errors.indices { plan.errors[index].type = self(plan.errors[index].type) }
        return plan
    }

    func callAsFunction(_ declaration: ModelDeclaration) -> ModelDeclaration {
        switch declaration {
        case .object(var model):
            model.name = self(model.name)
            for index in model.properties.indices { model.properties[index].type = self(model.properties[index].type) }
            model.additionalValues = model.additionalValues.map { self($0) }
            return .object(model)
        case .stringEnum(let name, let values, let documentation):
            return .stringEnum(name: self(name), values: values, documentation: documentation)
        case .union(var model):
            model.name = self(model.name)
            for index in model.alternatives.indices {
                model.alternatives[index].type = self(model.alternatives[index].type)
            }
            return .union(model)
        case .alias(let name, let target, let documentation):
            return .alias(name: self(name), target: self(target), documentation: documentation)
        }
    }
}
#endif
