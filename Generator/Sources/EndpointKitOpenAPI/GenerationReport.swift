#if OpenAPI
/// What the tool prints of a module's notes: grouped by reason, each group with its count, the fix to apply, and
/// the operations it names; and whether the run failed.
public struct GenerationReport: Sendable {
    /// The notes, in the order the generator made them.
    public let notes: [GenerationNote]

    /// A report of `notes`.
    public init(_ notes: [GenerationNote]) { self.notes = notes }

    /// How many operations were left out whole.
    public var operationsLeftOut: Int { notes.filter(\.operationSkipped).count }

    /// The report's lines: one head line per reason (its count and fix), then the names it applies to.
    public var lines: [String] {
        var order: [String] = []
        var groups: [String: [GenerationNote]] = [:]
        for note in notes {
            let key = "\(note.issue)" + (note.operationSkipped ? " (operation not generated)" : "")
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(note)
        }
        return order.flatMap { key -> [String] in
            let group = groups[key] ?? []
            let head = group.count == 1 ? key : "\(key): \(group.count) times"
            let fix = Self.fix(for: group[0].issue, skipped: group[0].operationSkipped).map { ["  fix: \($0)"] } ?? []
            let shown = group.prefix(20).map { "  \($0.operation)" }
            let more = group.count > 20 ? ["  … and \(group.count - 20) more"] : []
            return [head] + fix + shown + more
        }
    }

    /// Why the run fails, or `nil`: the overlay names what is not there; no operation was generated; or some
    /// were left out and that is not allowed.
    public func failure(generated: Int, allowLeftOut: Bool) -> String? {
        let overlay = notes.filter { if case .overlay = $0.issue { return true } else { return false } }
        if !overlay.isEmpty { return "the overlay names \(overlay.count) things the description does not have" }
        if generated == 0 { return "no operation was generated" }
        if operationsLeftOut > 0 && !allowLeftOut {
            return "\(operationsLeftOut) operations were not generated (--allow-left-out accepts that)"
        }
        return nil
    }

    private static func fix(for issue: GenerationIssue, skipped: Bool) -> String? {
        switch issue {
        case .unsupported where !skipped:
            "the rest of the operation is generated; declare an endpoint by hand for what is left out"
        case .undecidedKind:
            "name the operation's kind in the overlay: kinds: { operations: { OPERATION_ID: bearer } }"
        case .unsupported:
            "this version does not generate it: declare the endpoint by hand, or leave it out with --allow-left-out"
        case .overlay: "correct the name in the overlay, or remove the setting"
        case .assumed, .setAside: nil
        }
    }
}
#endif
