import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the writes of an outbox wait on disk: one file per write, named by its sequence number, written whole or
/// not at all and durable once `append` returns: the bytes go to a temporary file that is flushed to disk
/// (`fsync`), renamed into `entries/`, and the folder flushed too, so that a kill at any point leaves either no
/// entry or the whole entry. Each file ends with the SHA-256 of its contents: a file damaged later (a disk error,
/// a hand edit) is moved to `damaged/` at load and reported, and never stops the rest from loading.
struct OutboxJournal: Sendable {
    let entries: URL
    let temporary: URL
    let damaged: URL

    /// A journal in `directory`, made (owner-only) if it does not exist; leftovers of interrupted writes are removed.
    init(directory: URL) throws {
        entries = directory.appendingPathComponent("entries", isDirectory: true)
        temporary = directory.appendingPathComponent("tmp", isDirectory: true)
        damaged = directory.appendingPathComponent("damaged", isDirectory: true)
        for folder in [directory, entries, temporary, damaged] {
            try FileManager.default.createDirectory(
                at: folder,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        }
        for leftover in (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? [] {
            unlink(temporary.appendingPathComponent(leftover).path)
        }
    }

    /// The file of entry `sequence`: its number in fixed width, so that names sort as numbers.
    func file(for sequence: UInt64) -> URL {
        let digits = String(sequence)
        return entries.appendingPathComponent(String(repeating: "0", count: max(0, 20 - digits.count)) + digits)
    }

    /// Writes `record` as entry `sequence`, durably: when this returns, a crash loses nothing.
    func append(_ record: Data, sequence: UInt64) throws {
        var contents = record
        contents.append(contentsOf: Array("\nsha256:".utf8) + SHA256.hash(record).hexadecimal.utf8)
        let scratch = temporary.appendingPathComponent("\(sequence)-\(UUID().uuidString)")
        do {
            try Self.writeSynced(contents, to: scratch)
            guard rename(scratch.path, file(for: sequence).path) == 0 else { throw Self.failure("rename", errno) }
            try Self.sync(folder: entries)
        } catch {
            unlink(scratch.path)
            throw error
        }
    }

    /// Removes entry `sequence` (its write was answered); durable when this returns.
    func remove(sequence: UInt64) throws {
        guard unlink(file(for: sequence).path) == 0 || errno == ENOENT else { throw Self.failure("unlink", errno) }
        try Self.sync(folder: entries)
    }

    /// Moves entry `sequence` to `damaged/` (it read back whole but cannot be understood); returns its name.
    func setAside(sequence: UInt64) -> String {
        let name = file(for: sequence).lastPathComponent
        rename(file(for: sequence).path, damaged.appendingPathComponent("\(name)-\(UUID().uuidString)").path)
        return name
    }

    /// Every whole entry, by sequence; the names of the files that were not whole, moved to `damaged/`.
    func load() -> (records: [(sequence: UInt64, record: Data)], damaged: [String]) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: entries.path)) ?? []
        var records: [(UInt64, Data)] = []
        var damagedNames: [String] = []
        for name in names {
            let path = entries.appendingPathComponent(name)
            if let sequence = UInt64(name), let data = try? Data(contentsOf: path), let record = Self.verified(data) {
                records.append((sequence, record))
            } else {
                rename(path.path, damaged.appendingPathComponent("\(name)-\(UUID().uuidString)").path)
                damagedNames.append(name)
            }
        }
        return (records.sorted { $0.0 < $1.0 }, damagedNames)
    }

    /// The record a file holds, when its checksum says it is whole.
    static func verified(_ data: Data) -> Data? {
        let marker = Array("\nsha256:".utf8)
        let bytes = [UInt8](data)
        guard bytes.count >= marker.count + 64 else { return nil }
        let split = bytes.count - 64 - marker.count
        guard Array(bytes[split..<split + marker.count]) == marker else { return nil }
        let record = Data(bytes[..<split])
        let written = String(decoding: bytes[(split + marker.count)...], as: UTF8.self)
        return written == SHA256.hash(record).hexadecimal ? record : nil
    }

    private static func writeSynced(_ data: Data, to file: URL) throws {
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw failure("open", errno) }
        defer { close(descriptor) }
        try data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, base + offset, buffer.count - offset)
                guard written > 0 else { throw failure("write", errno) }
                offset += written
            }
        }
        guard fsync(descriptor) == 0 else { throw failure("fsync", errno) }
    }

    private static func sync(folder: URL) throws {
        let descriptor = open(folder.path, O_RDONLY)
        guard descriptor >= 0 else { throw failure("open", errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw failure("fsync", errno) }
    }

    /// A file operation that failed, with the call and the system's reason.
    struct Failure: Error, CustomStringConvertible {
        var call: String
        var reason: String
        var description: String { "the outbox could not \(call) a file: \(reason)" }
    }

    private static func failure(_ call: String, _ code: Int32) -> Failure {
        Failure(call: call, reason: String(cString: strerror(code)))
    }
}

/// An outbox's claim on its directory: an exclusive `flock(2)` on `lock` in it, held while the outbox is open.
/// Two outboxes on one directory would number their writes alike and overwrite each other's files; the lock holds
/// between processes too, and the system drops it when the process dies.
final class OutboxDirectoryLock: Sendable {
    private let descriptor: Int32

    /// Takes the lock on `directory` (which exists), or fails at once.
    init(directory: URL) throws(EndpointError) {
        let path = directory.appendingPathComponent("lock").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw EndpointError(
                .invalidRequest,
                "the outbox directory \(directory.path) cannot be locked: \(String(cString: strerror(errno)))"
            )
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw EndpointError(
                .invalidRequest,
                "the outbox directory \(directory.path) is open in another outbox, in this process or another, or "
                    + "one that went is still ending a try; open one outbox per directory, and await close() on "
                    + "one and let it go before opening the next"
            )
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }
}
