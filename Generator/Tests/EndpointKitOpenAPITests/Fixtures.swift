#if OpenAPI
import Foundation
import Testing

@testable import EndpointKitOpenAPI

/// The descriptions the generator's tests read: small fixtures of this folder, and the real ones in
/// `../shared/openapi` beside the checkout (never committed; a test that cannot read one fails).
enum Fixtures {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func description(_ name: String) throws -> OpenAPIDescription {
        try OpenAPIDescription(contentsOf: folder.appendingPathComponent(name))
    }

    /// A real description from `../shared/openapi`, unpacked with gzip.
    static func shared(_ name: String) throws -> OpenAPIDescription {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let file = root.deletingLastPathComponent().appendingPathComponent("shared/openapi/\(name).yaml.gz")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["gzip", "-dc", file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "cannot read \(file.path)")
        return try OpenAPIDescription(text: String(decoding: data, as: UTF8.self))
    }

    /// The plans of every operation of `description`, and what was left out.
    static func plans(_ description: OpenAPIDescription, overlay: Overlay = Overlay())
        -> (plans: [OperationPlan], notes: [GenerationNote])
    {
        var planner = OperationPlanner(document: description.document, overlay: overlay)
        let plans = planner.plans()
        return (plans, planner.notes)
    }
}
#endif
