#if OpenAPI
/// The overlay as the generator reads it: the one place it enters planning. It keeps every operation it was asked
/// about, so that each name the overlay uses and the description lacks is reported (``unmatched()``) rather than
/// ignored: a kind given to a misspelt `operationId` would leave the real operation as the description says.
struct OverlayReading {
    let overlay: Overlay
    /// Whether the description declares no security at all (no scheme, no requirement): `kinds.default` applies.
    let declaresNoSecurity: Bool
    private var labels: Set<String> = []
    private var operationIDs: Set<String> = []

    init(_ overlay: Overlay, declaresNoSecurity: Bool) {
        self.overlay = overlay
        self.declaresNoSecurity = declaresNoSecurity
    }

    /// `bearerTokens: middleware`: bearer and OAuth 2.0 schemes become `EndpointKinds.Authenticated`.
    var bearerThroughMiddleware: Bool { overlay.kinds?.bearerTokens == "middleware" }

    /// What the overlay says of one operation: the kind it names (by `operationId`, else `kinds.every`, else
    /// `kinds.default` where the description declares no security) and its settings (by `operationId`, or method
    /// and path). Recorded as asked.
    mutating func operation(label: String, operationID: String?) -> (
        kind: String?, settings: Overlay.OperationSettings?
    ) {
        labels.insert(label)
        if let operationID { operationIDs.insert(operationID) }
        let named = operationID.flatMap { overlay.kinds?.operations?[$0] }
        let kind = named ?? overlay.kinds?.every ?? (declaresNoSecurity ? overlay.kinds?.default : nil)
        return (kind, overlay.operations?[label])
    }

    /// A note for each operation the overlay names, under `kinds.operations` or `operations`, that no operation
    /// of the description has: each is an error (``GenerationIssue/overlay(_:)``).
    func unmatched() -> [GenerationNote] {
        let kinds = (overlay.kinds?.operations ?? [:]).keys.filter { !operationIDs.contains($0) }.sorted().map {
            GenerationNote(
                operation: "kinds.operations.\($0)",
                issue: .overlay("the description has no operation with this operationId"),
                operationSkipped: false
            )
        }
        let settings = (overlay.operations ?? [:]).keys.filter { !labels.contains($0) }.sorted().map {
            GenerationNote(
                operation: "operations.\($0)",
                issue: .overlay("the description has no such operation"),
                operationSkipped: false
            )
        }
        return kinds + settings
    }

    /// `declarations` with the overlay's model settings applied, and a note for each that matches nothing.
    func applyingModelSettings(to declarations: [ModelDeclaration]) -> ([ModelDeclaration], [GenerationNote]) {
        overlay.applyingModelSettings(to: declarations)
    }
}
#endif
