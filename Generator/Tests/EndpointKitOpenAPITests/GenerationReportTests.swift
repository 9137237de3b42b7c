#if OpenAPI
import Testing

@testable import EndpointKitOpenAPI

@Suite("The tool's report: grouped by reason, with the fix, and when the run fails")
struct GenerationReportTests {
    private let digest = GenerationIssue.undecidedKind("HTTP scheme \"digest\" of \"d\" has no kind")

    @Test("Notes of one reason are one group with its count, its fix and the operations it names")
    func grouped() {
        let notes =
            ["a", "b", "c"].map { GenerationNote(operation: $0, issue: digest, operationSkipped: true) }
            + [GenerationNote(operation: "d", issue: .unsupported("x"), operationSkipped: false)]
        let lines = GenerationReport(notes).lines
        #expect(
            lines.first == "no kind: HTTP scheme \"digest\" of \"d\" has no kind (operation not generated): 3 times"
        )
        #expect(lines[1].hasPrefix("  fix: name the operation's kind in the overlay"))
        #expect(Array(lines[2...4]) == ["  a", "  b", "  c"])
        #expect(lines[5] == "not supported: x")
        #expect(GenerationReport(notes).operationsLeftOut == 3)
    }

    @Test(
        "The run fails when nothing is generated, when operations are left out unless allowed, and on any overlay name that matches nothing"
    )
    func failure() {
        let skipped = [GenerationNote(operation: "a", issue: digest, operationSkipped: true)]
        #expect(GenerationReport([]).failure(generated: 0, allowLeftOut: true) == "no operation was generated")
        #expect(GenerationReport(skipped).failure(generated: 5, allowLeftOut: false) != nil)
        #expect(GenerationReport(skipped).failure(generated: 5, allowLeftOut: true) == nil)
        let overlay = [GenerationNote(operation: "operations.x", issue: .overlay("no"), operationSkipped: false)]
        #expect(GenerationReport(overlay).failure(generated: 5, allowLeftOut: true) != nil)
        let assumed = [GenerationNote(operation: "security", issue: .assumed("x"), operationSkipped: false)]
        #expect(GenerationReport(assumed).failure(generated: 5, allowLeftOut: false) == nil)
    }
}
#endif
