import Foundation
import PackagePlugin

/// `swift package generate-endpoints --spec FILE --output FOLDER [--overlay FILE]`: writes the typed endpoints of an
/// OpenAPI description into a folder of the package, with `endpointkit-openapi` (EndpointKit's `OpenAPI` trait).
///
/// A command, not a build plugin: the sources it writes are the user's, committed and reviewed, and nothing runs
/// at build time. `--allow-writing-to-package-directory` lets it write without asking, as CI needs.
@main
struct GenerateEndpoints: CommandPlugin {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let spec = extractor.extractOption(named: "spec")
        let output = extractor.extractOption(named: "output")
        let overlay = extractor.extractOption(named: "overlay")
        let allowLeftOut = extractor.extractFlag(named: "allow-left-out")
        guard spec.count == 1, output.count == 1, overlay.count <= 1, extractor.remainingArguments.isEmpty else {
            throw Failure(
                description: "usage: swift package generate-endpoints --spec FILE --output FOLDER [--overlay FILE] "
                    + "[--allow-left-out]"
            )
        }
        let root = context.package.directoryURL
        func resolved(_ path: String) -> String {
            path.hasPrefix("/") ? path : root.appendingPathComponent(path).path
        }
        let process = Process()
        process.executableURL = try context.tool(named: "endpointkit-openapi").url
        process.arguments =
            [resolved(spec[0]), resolved(output[0])] + overlay.flatMap { ["--overlay", resolved($0)] }
            + (allowLeftOut > 0 ? ["--allow-left-out"] : [])
        try process.run()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw Failure(description: "endpointkit-openapi failed (status \(process.terminationStatus))")
        }
    }
}
