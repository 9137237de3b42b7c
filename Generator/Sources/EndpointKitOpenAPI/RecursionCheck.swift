#if OpenAPI
/// Finds the object models that reach themselves through plain properties (not through an array, a map or a
/// union, which hold their values indirectly): a struct cannot contain itself, so those become final classes.
enum RecursionCheck {
    static func markingReferences(_ declarations: [ModelDeclaration]) -> [ModelDeclaration] {
        var byName: [String: ModelDeclaration] = [:]
        for declaration in declarations { byName[declaration.name] = declaration }
        /// The object models a type holds directly: its own name for an object, followed through aliases.
        func held(_ type: String, depth: Int = 0) -> String? {
            guard depth < 16 else { return nil }
            switch byName[type] {
            case .object: return type
            case .alias(_, let target, _): return held(target, depth: depth + 1)
            default: return nil
            }
        }
        var edges: [String: [String]] = [:]
        for case .object(let model) in declarations {
            edges[model.name] = model.properties.compactMap { held($0.type) }
        }
        var cyclic = Set<String>()
        for start in edges.keys where reaches(start, from: start, edges: edges) { cyclic.insert(start) }
        return declarations.map { declaration in
            guard case .object(var model) = declaration, cyclic.contains(model.name) else { return declaration }
            model.isReference = true
            return .object(model)
        }
    }

    private static func reaches(_ target: String, from start: String, edges: [String: [String]]) -> Bool {
        var seen = Set<String>()
        var stack = edges[start] ?? []
        while let next = stack.popLast() {
            if next == target { return true }
            guard seen.insert(next).inserted else { continue }
            stack.append(contentsOf: edges[next] ?? [])
        }
        return false
    }
}
#endif
