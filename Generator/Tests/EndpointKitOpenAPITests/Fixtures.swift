#if OpenAPI
import Foundation
import Testing

@testable import EndpointKitOpenAPI

/// The descriptions the generator's tests read: small fixtures of this folder, and the real ones in
/// `Generator/TestData/openapi` (gzipped; its README names each one's source, version and licence).
enum Fixtures {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func description(_ name: String) throws -> OpenAPIDescription {
        try OpenAPIDescription(contentsOf: folder.appendingPathComponent(name))
    }

    /// A real description from `Generator/TestData/openapi`, unpacked with gzip.
    static func real(_ name: String) throws -> OpenAPIDescription {
        let generator = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let file = generator.appendingPathComponent("TestData/openapi/\(name).yaml.gz")
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

    /// Runs `work` on a thread of its own and awaits it.
    ///
    /// Reading and generating a real description takes seconds of one core. On Swift's cooperative pool (two
    /// threads on a 2-core machine) that work would hold a thread every other suite running in parallel needs:
    /// their tasks, resumed on time, would wait seconds for one (tests beside them waited 11.5 s to start).
    static func offPool<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
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
