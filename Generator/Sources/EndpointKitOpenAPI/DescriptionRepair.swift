#if OpenAPI
import Foundation
import Yams

/// What a real description holds that OpenAPIKit would refuse whole, set right or set aside before it is decoded,
/// each with a note: real descriptions mix versions and tools, and one keyword must not refuse the rest.
///
/// - A numeric bound (`maximum`, `minimum`, `exclusiveMaximum`, `exclusiveMinimum`) beyond what `Int64` holds
///   (`9223372036854776000`, 2^63 as JSON tools print it) is dropped: no generated type checks it.
/// - In a 3.1 or 3.2 description, a boolean `exclusiveMinimum`/`exclusiveMaximum` (the 3.0 form) is read as 3.0
///   defines it: `true` makes `minimum`/`maximum` exclusive, `false` says nothing.
enum DescriptionRepair {
    /// `root` set right, and a note for each change, by reason.
    static func repaired(_ root: Node, isVersion30: Bool) -> (Node, [GenerationNote]) {
        var notes: [GenerationNote] = []
        var path = ["#"]
        let node = repaired(root, path: &path, isVersion30: isVersion30, notes: &notes) ?? root
        return (node, notes)
    }

    private static let bounds = ["maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum"]

    /// `node` set right, or `nil` when nothing under it changes (most of a description: its nodes are kept as
    /// they are); `path` holds the keys that lead to it, joined only for a note.
    private static func repaired(_ node: Node, path: inout [String], isVersion30: Bool, notes: inout [GenerationNote])
        -> Node?
    {
        switch node {
        case .mapping(var mapping):
            var changed = false
            if mapping.contains(where: { bounds.contains($0.key.string ?? "") }) {
                var pairs = mapping.map { (key: $0.key, value: $0.value) }
                if !isVersion30 { changed = readBooleanBounds(&pairs, path: path, notes: &notes) }
                changed = dropBoundsBeyondInt64(&pairs, path: path, notes: &notes) || changed
                if changed {
                    mapping = Node.Mapping(pairs.map { ($0.key, $0.value) }, mapping.tag, mapping.style, mapping.mark)
                }
            }
            for index in mapping.indices {
                path.append(mapping[index].key.string ?? "?")
                if let value = repaired(mapping[index].value, path: &path, isVersion30: isVersion30, notes: &notes) {
                    mapping[index] = (mapping[index].key, value)
                    changed = true
                }
                path.removeLast()
            }
            return changed ? .mapping(mapping) : nil
        case .sequence(var sequence):
            var changed = false
            for index in sequence.indices {
                path.append(String(index))
                if let value = repaired(sequence[index], path: &path, isVersion30: isVersion30, notes: &notes) {
                    sequence[index] = value
                    changed = true
                }
                path.removeLast()
            }
            return changed ? .sequence(sequence) : nil
        default:
            return nil
        }
    }

    /// Drops each bound of `pairs` that no `Int64` holds; whether it dropped any.
    private static func dropBoundsBeyondInt64(
        _ pairs: inout [(key: Node, value: Node)],
        path: [String],
        notes: inout [GenerationNote]
    ) -> Bool {
        let count = pairs.count
        pairs.removeAll { key, value in
            guard let name = key.string, bounds.contains(name), let text = value.scalar?.string, isBeyondInt64(text)
            else { return false }
            let place = path.joined(separator: "/")
            let issue = GenerationIssue.setAside("a bound beyond Int64 is dropped")
            notes.append(GenerationNote(operation: "\(place)/\(name): \(text)", issue: issue, operationSkipped: false))
            return true
        }
        return pairs.count != count
    }

    /// Reads a boolean `exclusiveMinimum`/`exclusiveMaximum` of `pairs` as OpenAPI 3.0 defines it; whether there
    /// was one.
    private static func readBooleanBounds(
        _ pairs: inout [(key: Node, value: Node)],
        path: [String],
        notes: inout [GenerationNote]
    ) -> Bool {
        var changed = false
        for (exclusive, bound) in [("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")] {
            guard let index = pairs.firstIndex(where: { $0.key.string == exclusive }),
                let flag = pairs[index].value.scalar?.string.lowercased(), flag == "true" || flag == "false"
            else { continue }
            let issue = GenerationIssue.setAside(
                "a boolean \(exclusive) (OpenAPI 3.0's form) is read as 3.0 defines it"
            )
            let place = path.joined(separator: "/")
            notes.append(
                GenerationNote(operation: "\(place)/\(exclusive): \(flag)", issue: issue, operationSkipped: false)
            )
            changed = true
            if flag == "true", let boundIndex = pairs.firstIndex(where: { $0.key.string == bound }) {
                pairs[index].value = pairs[boundIndex].value
                pairs.remove(at: boundIndex)
            } else {
                pairs.remove(at: index)
            }
        }
        return changed
    }

    /// Whether `text` is a number no `Int64` holds: an integer (written with or without an exponent) past
    /// ±9223372036854775807.
    static func isBeyondInt64(_ text: String) -> Bool {
        guard let value = Decimal(string: text), Double(text) != nil else { return false }
        return value > Decimal(Int64.max) || value < Decimal(Int64.min)
    }
}
#endif
