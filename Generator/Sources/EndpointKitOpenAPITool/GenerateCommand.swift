#if OpenAPI
import ArgumentParser
import EndpointKitOpenAPI
import Foundation

/// `endpointkit-openapi SPEC OUTDIR [--overlay FILE] [--allow-left-out]`: writes one module's sources and says
/// what it left out, grouped by reason with the fix for each. It exits non-zero when the overlay names what the
/// description lacks, when no operation is generated, or when any is left out (unless `--allow-left-out`).
@main
struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "endpointkit-openapi",
        abstract: "Generates typed EndpointKit endpoints from an OpenAPI 3.0, 3.1 or 3.2 description."
    )

    @Argument(help: "The OpenAPI description, YAML or JSON.")
    var description: String

    @Argument(help: "The folder to write the module's Swift sources to.")
    var output: String

    @Option(help: "An overlay (YAML) with the kinds and settings the description does not give.")
    var overlay: String?

    @Flag(help: "Exit 0 even when some operations are left out (each is still reported).")
    var allowLeftOut = false

    @Option(help: .hidden)
    var roundTripCalls: String?

    mutating func run() throws {
        let started = ContinuousClock.now
        let overlay =
            try self.overlay.map { try Overlay(yaml: String(contentsOfFile: $0, encoding: .utf8)) } ?? Overlay()
        let document = try OpenAPIDescription(contentsOf: URL(fileURLWithPath: description))
        let read = ContinuousClock.now - started
        let module = OpenAPIGenerator(overlay: overlay).generate(from: document)
        try module.write(to: URL(fileURLWithPath: output, isDirectory: true))
        if let roundTripCalls {
            let text = OpenAPIGenerator(overlay: overlay).roundTripCalls(for: document)
            try Data(text.utf8).write(to: URL(fileURLWithPath: roundTripCalls))
        }
        let report = GenerationReport(module.notes)
        for line in report.lines { FileHandle.standardError.write(Data("endpointkit-openapi: \(line)\n".utf8)) }
        let elapsed = ContinuousClock.now - started
        print(
            "endpointkit-openapi: \(module.operations) operations generated, \(report.operationsLeftOut) not generated, "
                + "\(module.lineCount) lines in \(module.files.count) files, in \(Self.seconds(elapsed)) "
                + "(the description read in \(Self.seconds(read)))"
        )
        if let failure = report.failure(generated: module.operations, allowLeftOut: allowLeftOut) {
            FileHandle.standardError.write(Data("endpointkit-openapi: error: \(failure)\n".utf8))
            throw ExitCode(1)
        }
    }

    private static func seconds(_ duration: Duration) -> String {
        duration.formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 2)))
    }
}
#else
import Foundation

/// Without the OpenAPI trait the tool says how to build it, and fails.
@main
enum GenerateCommand {
    static func main() {
        FileHandle.standardError.write(
            Data(
                "endpointkit-openapi needs EndpointKit's OpenAPI trait: swift run --traits OpenAPI endpointkit-openapi\n"
                    .utf8
            )
        )
        exit(64)
    }
}
#endif
