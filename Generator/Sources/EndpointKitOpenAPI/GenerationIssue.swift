#if OpenAPI
/// Why the generator left something out: an operation it could not give a kind or a shape, or a parameter it
/// cannot type yet. The tool prints each one; nothing is left out silently.
public enum GenerationIssue: Error, Equatable, Sendable, CustomStringConvertible {
    /// No kind could be decided from the description and the overlay: the operation is not generated.
    case undecidedKind(String)
    /// The operation has a shape the generator does not write: it is not generated.
    case unsupported(String)
    /// The overlay names what the description or the module does not have (an operation, a model, a member, a
    /// path parameter): an error, and the tool exits non-zero.
    case overlay(String)
    /// What the generator assumed where the description is silent, said once for the whole module.
    case assumed(String)
    /// Something the description holds that could not be read as it is, set right or set aside while reading
    /// (``DescriptionRepair``): the rest of the description is read.
    case setAside(String)

    /// The reason, as the tool prints it.
    public var description: String {
        switch self {
        case .undecidedKind(let reason): "no kind: \(reason)"
        case .unsupported(let reason): "not supported: \(reason)"
        case .overlay(let reason): "overlay: \(reason)"
        case .assumed(let reason): "assumed: \(reason)"
        case .setAside(let reason): "read: \(reason)"
        }
    }
}

/// Something the generator left out, and where.
public struct GenerationNote: Equatable, Sendable, CustomStringConvertible {
    /// The operation: its `operationId`, or its method and path.
    public var operation: String
    /// What was left out, and why.
    public var issue: GenerationIssue
    /// Whether the whole operation was left out (`false`: one of its optional parameters was).
    public var operationSkipped: Bool

    /// The operation, the reason, and what was left out, as the tool prints it.
    public var description: String {
        switch issue {
        case .overlay, .assumed, .setAside: return "\(operation): \(issue)"
        case .undecidedKind, .unsupported: break
        }
        return "\(operation): \(issue)" + (operationSkipped ? " (operation not generated)" : " (parameter left out)")
    }
}
#endif
