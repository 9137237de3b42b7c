import Foundation
import Testing

@testable import EndpointKit

/// The outbox's journal keeps every appended write, whole, in order, and sets a damaged file aside without
/// stopping the rest.
@Suite struct OutboxJournalTests {
    private let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "journal-\(UUID().uuidString)"
    )

    @Test("Appended records load back whole and in sequence order, across a new journal on the same folder")
    func appendAndLoad() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let journal = try OutboxJournal(directory: directory)
        for sequence in [3, 1, 12, 2] as [UInt64] {
            try journal.append(Data("write \(sequence)".utf8), sequence: sequence)
        }
        try journal.remove(sequence: 2)

        let reopened = try OutboxJournal(directory: directory).load()

        #expect(reopened.records.map(\.sequence) == [1, 3, 12])
        #expect(
            reopened.records.map { String(decoding: $0.record, as: UTF8.self) } == ["write 1", "write 3", "write 12"]
        )
        #expect(reopened.damaged.isEmpty)
    }

    @Test("A file damaged after it was written is moved aside and named; the others load")
    func damaged() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let journal = try OutboxJournal(directory: directory)
        try journal.append(Data("first".utf8), sequence: 1)
        try journal.append(Data("second".utf8), sequence: 2)
        try journal.append(Data("third".utf8), sequence: 3)
        var bytes = try Data(contentsOf: journal.file(for: 2))
        bytes[0] ^= 0xFF
        try bytes.write(to: journal.file(for: 2))
        try Data("not an entry".utf8).write(to: journal.entries.appendingPathComponent("stray"))

        let loaded = journal.load()

        #expect(loaded.records.map(\.sequence) == [1, 3])
        #expect(Set(loaded.damaged) == [journal.file(for: 2).lastPathComponent, "stray"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: journal.damaged.path).count == 2)
        #expect(journal.load().damaged.isEmpty)
    }

    @Test("A write interrupted before its rename leaves no entry, and its leftover is removed when the journal opens")
    func interrupted() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let journal = try OutboxJournal(directory: directory)
        try Data("half a wri".utf8).write(to: journal.temporary.appendingPathComponent("7-leftover"))

        let reopened = try OutboxJournal(directory: directory)

        #expect(reopened.load().records.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: reopened.temporary.path).isEmpty)
    }

    @Test("Truncated or unmarked bytes are not a whole entry", arguments: ["", "record", "record\nsha256:abc"])
    func verification(text: String) {
        #expect(OutboxJournal.verified(Data(text.utf8)) == nil)
    }
}
