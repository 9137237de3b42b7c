import EndpointKit
import EndpointKitTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The outbox's crash proof: another process (`EndpointKitOutboxWriter`) queues numbered writes over many groups
/// against the fault server, which applies each key once (the `Idempotency-Key` draft), holds some answers and
/// loses others; the harness kills it with SIGKILL at random moments and starts it again, until every write is
/// queued and sent. The server must end with every write applied exactly once, in order within its group, none
/// lost; and each start must find the directory whole (nothing set aside as damaged).
///
/// CI runs 500 writes, 50 groups and 50 kills; `scripts/outbox-crash.sh` runs 10,000 writes and 1,000 kills
/// (`OUTBOX_CRASH_WRITES`, `OUTBOX_CRASH_KILLS`, `OUTBOX_CRASH_SEED`).
@Suite("Outbox crash proof", .timeLimit(.minutes(60)))
struct OutboxCrashIntegrationTests {
    struct Settings {
        var writes = 500
        var groups = 50
        var kills = 50
        /// Fixed, so that CI runs the same kills each time; `scripts/outbox-crash.sh SEED` (or OUTBOX_CRASH_SEED)
        /// runs others.
        var seed: UInt64 = 20_261_127

        init() {
            let environment = ProcessInfo.processInfo.environment
            if let value = environment["OUTBOX_CRASH_WRITES"].flatMap(Int.init) { writes = value }
            if let value = environment["OUTBOX_CRASH_KILLS"].flatMap(Int.init) { kills = value }
            if let value = environment["OUTBOX_CRASH_SEED"].flatMap(UInt64.init) { seed = value }
        }
    }

    static var writer: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("EndpointKitOutboxWriter")
    }

    @Test("Writes survive SIGKILL at random points: each applied exactly once, in order per group, none lost")
    func killedAndRestarted() async throws {
        let settings = Settings()
        print(
            "outbox crash proof: seed \(settings.seed), \(settings.writes) writes, \(settings.groups) groups, \(settings.kills) kills"
        )
        let run = CrashRun(settings: settings, server: try TestServers.fault())
        defer { try? FileManager.default.removeItem(at: run.directory) }
        let report = try await Self.offThePool { try run.run() }
        print("outbox crash proof: \(report.summary)")

        #expect(report.damagedAtStart == 0, "a start found files it had to set aside")
        #expect(report.finalStatus == 0)
        #expect(report.finalLines.last == "done")
        let applied = try await Self.appliedLogs(key: run.key)
        var wrong: [String] = []
        for group in 0..<settings.groups {
            let expected = stride(from: group, to: settings.writes, by: settings.groups).map { "w\($0)" }
            let got = applied["g\(group)"] ?? []
            if got != expected {
                wrong.append("g\(group): \(got.count) applied, first difference \(Self.firstDifference(got, expected))")
            }
        }
        #expect(wrong.isEmpty, "groups not applied exactly once in order: \(wrong.prefix(5))")
        let damaged =
            (try? FileManager.default.contentsOfDirectory(atPath: run.directory.appendingPathComponent("damaged").path))
            ?? []
        #expect(damaged.isEmpty)
    }

    static func firstDifference(_ got: [String], _ expected: [String]) -> String {
        for index in 0..<max(got.count, expected.count) {
            let a = index < got.count ? got[index] : "nothing"
            let b = index < expected.count ? expected[index] : "nothing"
            if a != b { return "at \(index): \(a) instead of \(b)" }
        }
        return "none"
    }

    /// Every group's applied bodies, in order.
    static func appliedLogs(key: String) async throws -> [String: [String]] {
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        struct Logs: Decodable { var groups: [String: [String]] }
        return try await client.response(for: Endpoint<EndpointKinds.Public, Logs>(path: "idem-log/\(key)")).groups
    }

    /// Runs `body`, which waits on processes and files, on a thread of its own, off the cooperative pool.
    static func offThePool<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }
}
