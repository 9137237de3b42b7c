#if OpenAPI
import Foundation
import Yams

/// Replaces each `$ref` that points inside a component schema (`#/components/schemas/Page/properties/page`) with
/// a copy of what it points at, before the description is decoded: OpenAPIKit reads such a reference as an empty
/// schema, and the property would lose its type.
enum PointerInlining {
    /// Whether `text` holds such a reference at all: most descriptions do not, and are not walked.
    static func isNeeded(in text: String) -> Bool {
        text.range(of: #"#/components/schemas/[^'"/\s]+/"#, options: .regularExpression) != nil
    }

    static func inlined(_ root: Node) -> Node {
        inlined(root, in: root, depth: 0)
    }

    private static func inlined(_ node: Node, in root: Node, depth: Int) -> Node {
        switch node {
        case .mapping(var mapping):
            if let reference = mapping["$ref"]?.string, let target = target(of: reference, in: root), depth < 16 {
                return inlined(target, in: root, depth: depth + 1)
            }
            for index in mapping.indices {
                let (key, value) = mapping[index]
                mapping[index] = (key, inlined(value, in: root, depth: depth))
            }
            return .mapping(mapping)
        case .sequence(var sequence):
            for index in sequence.indices { sequence[index] = inlined(sequence[index], in: root, depth: depth) }
            return .sequence(sequence)
        default:
            return node
        }
    }

    /// The node a pointer deeper than a component names, or `nil` for a component's own reference (OpenAPIKit
    /// reads those) and for a pointer that names nothing.
    private static func target(of reference: String, in root: Node) -> Node? {
        guard reference.hasPrefix("#/components/schemas/") else { return nil }
        let steps = reference.dropFirst(2).split(separator: "/").map {
            $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        }
        guard steps.count > 3 else { return nil }
        var current = root
        for step in steps {
            switch current {
            case .mapping(let mapping):
                guard let next = mapping[step] else { return nil }
                current = next
            case .sequence(let sequence):
                guard let index = Int(step), sequence.indices.contains(index) else { return nil }
                current = sequence[index]
            default:
                return nil
            }
        }
        return current
    }
}
#endif
