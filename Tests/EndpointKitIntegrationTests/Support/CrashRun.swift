import EndpointKitTesting
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One run of the outbox crash proof: starts the writer, kills it at a seeded random moment, looks at what the kill
/// left, and again, then lets a last writer finish. Blocking: run it off the cooperative pool.
struct CrashRun: Sendable {
    let settings: OutboxCrashIntegrationTests.Settings
    let server: URL
    let key = "crash-\(UUID().uuidString)"
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-crash-\(UUID().uuidString)")

    struct Report: Sendable {
        var damagedAtStart = 0
        var finalStatus: Int32 = -1
        var finalLines: [String] = []
        /// Where the kills landed, by what they left (a kill may leave more than one): a file half-written, a write
        /// the server applied whose answer was not handled, a write queued but not applied yet, nothing queued.
        var kills: [String: Int] = [:]
        var killCount = 0
        var seconds = 0.0

        var summary: String {
            let landed = kills.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
            return "\(killCount) kills landed: \(landed); \(String(format: "%.1f", seconds)) s in all"
        }
    }

    func run() throws -> Report {
        var generator = SeededGenerator(seed: settings.seed)
        var report = Report()
        let started = Date()
        var acknowledged = -1
        for _ in 0..<settings.kills {
            let from = max(acknowledged, try highestApplied()) + 1
            if from >= settings.writes, isQueueEmpty { break }
            let writer = try Writer(start: self, from: from)
            // After a seeded number of writes of this run are on disk (half the average share on average, so that
            // every kill is spent before the writes run out), then a seeded fraction of a few milliseconds more:
            // kills spread over the job and land in every phase. The count is read from the writer's own output,
            // as it prints it; the fraction is the fault's random place, not an ordering of events.
            let share = max(1, settings.writes / max(1, settings.kills))
            let target = Int.random(in: 0...share, using: &generator)
            writer.waitForQueued(from + target > settings.writes ? 0 : target)
            // With nothing left to queue, a run only drains: it gets longer, so that the queue empties.
            let extra = from >= settings.writes ? 60_000 : 8_000
            usleep(useconds_t(Int.random(in: 0...extra, using: &generator)))
            kill(writer.process.processIdentifier, SIGKILL)
            let lines = writer.finish()
            report.damagedAtStart += damagedCount(lines)
            for line in lines where line.hasPrefix("queued ") {
                acknowledged = max(acknowledged, Int(line.dropFirst(7)) ?? -1)
            }
            report.killCount += 1
            let landed = try landing()
            for place in landed { report.kills[place, default: 0] += 1 }
            if ProcessInfo.processInfo.environment["OUTBOX_CRASH_TRACE"] != nil {
                print(
                    "kill: from \(from), target \(target), \(lines.count) lines, last \(lines.last ?? "-"), \(landed.sorted())"
                )
            }
        }
        let last = try Writer(start: self, from: max(acknowledged, try highestApplied()) + 1)
        report.finalLines = last.finish()
        report.damagedAtStart += damagedCount(report.finalLines)
        report.finalStatus = last.process.terminationStatus
        report.seconds = Date().timeIntervalSince(started)
        return report
    }

    /// One run of the writer, its output read from a pipe as it prints it.
    final class Writer {
        let process = Process()
        private let output = Pipe()
        private var text = ""

        init(start run: CrashRun, from: Int) throws {
            process.executableURL = OutboxCrashIntegrationTests.writer
            process.arguments = [
                run.directory.path, run.server.absoluteString, run.key, String(from), String(run.settings.writes),
                String(run.settings.groups),
            ]
            process.standardOutput = output
            try process.run()
        }

        /// Reads until the writer reported `count` writes queued in this run (after its `opened` line), or its
        /// output ended: blocking reads of the pipe, no polling.
        func waitForQueued(_ count: Int) {
            while true {
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                if lines.first?.hasPrefix("opened") == true, lines.count - 1 >= count { return }
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { return }
                text += String(decoding: chunk, as: UTF8.self)
            }
        }

        /// Waits for the writer to end; returns every line it printed.
        func finish() -> [String] {
            text += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return text.split(separator: "\n").map(String.init)
        }
    }

    private var isQueueEmpty: Bool {
        let names = try? FileManager.default.contentsOfDirectory(
            atPath: directory.appendingPathComponent("entries").path
        )
        return names?.isEmpty ?? true
    }

    /// The files the writer's start set aside, from its first line, `opened PENDING DAMAGED`.
    private func damagedCount(_ lines: [String]) -> Int {
        guard let first = lines.first, first.hasPrefix("opened ") else { return 0 }
        return Int(first.split(separator: " ").last ?? "") ?? 0
    }

    /// The highest write number the server applied in any group.
    private func highestApplied() throws -> Int {
        try appliedNumbers().max() ?? -1
    }

    private func appliedNumbers() throws -> Set<Int> {
        let data = try curl("\(server.absoluteString)/idem-log/\(key)")
        struct Logs: Decodable { var groups: [String: [String]] }
        let logs = try JSONDecoder().decode(Logs.self, from: data)
        return Set(logs.groups.values.joined().compactMap { Int($0.dropFirst()) })
    }

    /// What the kill left: read from the temporary folder, the queued files and what the server applied.
    private func landing() throws -> Set<String> {
        var places: Set<String> = []
        let temporary = directory.appendingPathComponent("tmp")
        if (try? FileManager.default.contentsOfDirectory(atPath: temporary.path))?.isEmpty == false {
            places.insert("mid-write of a queue file (before its rename)")
        }
        let entries = directory.appendingPathComponent("entries")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: entries.path)) ?? []
        let applied = try appliedNumbers()
        for name in names {
            let isApplied = number(in: entries.appendingPathComponent(name)).map(applied.contains) == true
            places.insert(
                isApplied
                    ? "after the server applied a write, before its answer was handled"
                    : "with a write queued, not applied yet (before or while sending)"
            )
        }
        if places.isEmpty { places.insert("with nothing queued or being written") }
        return places
    }

    /// The write number a queued file holds (its JSON record, before the checksum line), in its query item `i`.
    private func number(in file: URL) -> Int? {
        guard let data = try? Data(contentsOf: file), let end = data.lastIndex(of: UInt8(ascii: "\n")),
            let record = try? JSONSerialization.jsonObject(with: data[..<end]) as? [String: Any],
            let query = record["query"] as? [[String: Any]],
            let item = query.first(where: { $0["name"] as? String == "i" })
        else { return nil }
        return (item["value"] as? String).flatMap { Int($0) }
    }

    private func curl(_ url: String) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl", "-sf", url]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return data
    }
}
