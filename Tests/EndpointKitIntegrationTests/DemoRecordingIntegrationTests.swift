import Foundation
import Testing

/// The demo records its run to HAR and replays it with no server, printing the same.
@Suite(.timeLimit(.minutes(2)))
struct DemoRecordingIntegrationTests {
    @Test("endpointkit-demo --replay prints what --record printed, and the recording is valid HAR")
    func recordThenReplay() async throws {
        // The demo is built beside this test bundle.
        let folder = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).deletingLastPathComponent()
        let demo = folder.appendingPathComponent("endpointkit-demo").path
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("demo-\(UUID().uuidString).har").path
        defer { try? FileManager.default.removeItem(atPath: file) }

        let recorded = String(decoding: try await Shell.output(of: "'\(demo)' --record '\(file)'"), as: UTF8.self)
        let replayed = String(decoding: try await Shell.output(of: "'\(demo)' --replay '\(file)'"), as: UTF8.self)
        let validation = String(
            decoding: try await Shell.output(of: "scripts/validate-har.py '\(file)'"),
            as: UTF8.self
        )

        #expect(recorded.contains("✓ both screens show \"Sencha\""))
        #expect(recorded.contains("✓ sent with the key the child gave it"))
        #expect(recorded.contains("the server now has \"Earl Grey\""))
        #expect(replayed == recorded)
        #expect(validation.contains("entries valid"), "\(validation)")
        #expect(!(try String(contentsOfFile: file, encoding: .utf8)).contains("demo-token"))
    }
}
