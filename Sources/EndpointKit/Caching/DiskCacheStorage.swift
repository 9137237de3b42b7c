import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An ``HTTPCache/Storage`` in a directory you name, so that a CLI or an app starts with the responses it had.
///
///     let storage = try DiskCacheStorage(directory: cachesFolder.appendingPathComponent("api"))
///     let client = EndpointClient(environment: .production, cache: HTTPCache(storage: storage))
///
/// - **Atomic:** an entry is written to a temporary file and renamed into place, so a crash mid-write leaves the
///   old entry or none, never a torn one; an entry that does not read back whole is ignored.
/// - **Shared:** several processes may use one directory at once. They share its secret, so that partitions
///   match, and trim it under an `flock(2)` lock.
/// - **Bounded:** when the bytes this process has added may have passed ``maximumSize``, the least recently
///   used entries (by modification time, which a read renews) are removed until the directory fits.
/// - **Versioned:** everything lives under `v1/`, and each file starts with a format mark; what an older or newer
///   release wrote is ignored rather than misread.
/// - **Private:** file names are keyed hashes, never URLs; the directory and its files are readable by their
///   owner only. Stored responses are the server's; `Set-Cookie` is never stored, and request credentials are
///   stored only as the keyed hash of the partition.
public final class DiskCacheStorage: HTTPCache.Storage {
    /// The most bytes the entries may take together.
    public let maximumSize: Int
    /// The most bytes one entry may take; a larger response is not stored.
    public let maximumEntrySize: Int
    /// The directory given, and the versioned one inside it that holds everything.
    public let directory: URL
    private let root: URL
    private let entriesFolder: URL
    private let temporaryFolder: URL
    private let lockPath: String
    private let secret: [UInt8]
    private let names: CacheKeyNames
    /// What opening the directory found damaged and repaired (a key file cut short, a folder that was a file), one
    /// sentence each; empty when it was whole. Damage never stops a storage from opening: it starts empty instead.
    public let repairs: [String]
    /// Bytes this process believes the entries take: measured when it trims, and added to by each store.
    private let estimatedSize: Locked<Int?> = Locked(nil)

    /// The format mark at the start of every entry file, and the folder name of this format.
    static let formatMark = Array("EKC1".utf8)
    static let endMark = Array("EKC.".utf8)
    static let version = "v1"

    /// Opens (or creates) a storage in `directory`.
    ///
    /// - Parameters:
    ///   - directory: Where entries live; created when missing.
    ///   - maximumSize: The most bytes all entries may take: 64 MiB unless given.
    ///   - maximumEntrySize: The most bytes one entry may take: 4 MiB unless given, and never more than
    ///     `maximumSize`.
    /// - Throws: ``EndpointError/Kind/invalidRequest`` when the directory cannot be created or written to.
    public init(directory: URL, maximumSize: Int = 64 << 20, maximumEntrySize: Int = 4 << 20) throws(EndpointError) {
        self.directory = directory
        self.maximumSize = max(0, maximumSize)
        self.maximumEntrySize = min(max(0, maximumEntrySize), self.maximumSize)
        root = directory.appendingPathComponent(Self.version, isDirectory: true)
        entriesFolder = root.appendingPathComponent("entries", isDirectory: true)
        temporaryFolder = root.appendingPathComponent("tmp", isDirectory: true)
        lockPath = root.appendingPathComponent("lock").path
        do {
            let opened = try PrivateDirectory.prepare(
                root: root,
                folders: [directory, root, entriesFolder, temporaryFolder],
                entries: entriesFolder,
                temporary: temporaryFolder
            )
            secret = opened.secret
            repairs = opened.repairs
            names = CacheKeyNames(secret: secret)
        } catch {
            throw EndpointError(
                .invalidRequest,
                "the cache directory \(directory.path) cannot be used: \(error)",
                underlyingError: error
            )
        }
    }

    /// The directory's secret, shared by every process that uses it.
    public var partitionSecret: Data? { Data(secret) }

    // MARK: Keys to files

    private func folder(forURL url: String) -> URL {
        entriesFolder.appendingPathComponent(names.name(forURL: url), isDirectory: true)
    }

    private func file(for key: HTTPCache.Key) -> URL {
        folder(forURL: key.url).appendingPathComponent(names.name(forPartitionOf: key))
    }

    // MARK: Storage

    /// The variants stored under `key`, newest first; reading counts as a use.
    public func entries(for key: HTTPCache.Key) -> [HTTPCache.Entry] {
        let file = file(for: key)
        guard let data = try? Data(contentsOf: file), let entries = Self.decode(data) else { return [] }
        // A read is a use: the modification time orders eviction.
        _ = utimes(file.path, nil)
        return entries
    }

    /// Stores `entry` under `key`, replacing the variant with its secondary key.
    public func store(_ entry: HTTPCache.Entry, for key: HTTPCache.Key) {
        var variants = entries(for: key).filter { $0.secondaryKey != entry.secondaryKey }
        if entry.size <= maximumEntrySize { variants.insert(entry, at: 0) }
        var total = variants.reduce(0) { $0 + $1.size }
        while total > maximumEntrySize, let last = variants.popLast() { total -= last.size }
        let file = file(for: key)
        guard !variants.isEmpty else {
            unlink(file.path)
            return
        }
        let data = Self.encode(variants)
        try? FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(),
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        guard PrivateFile.write(data, to: file, through: temporaryFolder) else { return }
        let estimate = estimatedSize.withLock { size -> Int? in
            guard let known = size else { return nil }
            size = known + data.count
            return size
        }
        if estimate.map({ $0 > maximumSize }) ?? true { trim() }
    }

    /// Removes every variant under `key`.
    public func removeEntries(for key: HTTPCache.Key) {
        unlink(file(for: key).path)
    }

    /// Removes every entry for `url`, in every partition.
    public func removeEntries(forURL url: String) {
        try? FileManager.default.removeItem(at: folder(forURL: url))
    }

    /// Removes every entry.
    public func removeAll() {
        withLock {
            try? FileManager.default.removeItem(at: entriesFolder)
            try? FileManager.default.createDirectory(at: entriesFolder, withIntermediateDirectories: true)
        }
        estimatedSize.withLock { $0 = 0 }
    }

    /// The bytes the entry files take now, measured.
    public var currentSize: Int { files().reduce(0) { $0 + $1.size } }

    /// Measures the directory under the lock and removes the least recently used entries until it fits, and
    /// temporary files a process that died mid-write left behind.
    func trim() {
        withLock {
            var files = files()
            var total = files.reduce(0) { $0 + $1.size }
            if total > maximumSize {
                files.sort { $0.modified < $1.modified }
                for file in files where total > maximumSize {
                    if unlink(file.path) == 0 { total -= file.size }
                }
            }
            estimatedSize.withLock { $0 = total }
            let abandoned = Date().addingTimeInterval(-600)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: temporaryFolder.path)) ?? [] {
                let path = temporaryFolder.appendingPathComponent(name).path
                var info = stat()
                if stat(path, &info) == 0, Self.modified(info) < abandoned.timeIntervalSince1970 {
                    unlink(path)
                }
            }
        }
    }

    private struct FileInfo {
        var path: String
        var size: Int
        var modified: Double
    }

    private func files() -> [FileInfo] {
        var result: [FileInfo] = []
        let manager = FileManager.default
        for folder in (try? manager.contentsOfDirectory(atPath: entriesFolder.path)) ?? [] {
            let folderPath = entriesFolder.path + "/" + folder
            for name in (try? manager.contentsOfDirectory(atPath: folderPath)) ?? [] {
                let path = folderPath + "/" + name
                var info = stat()
                guard stat(path, &info) == 0 else { continue }
                result.append(FileInfo(path: path, size: Int(info.st_size), modified: Self.modified(info)))
            }
        }
        return result
    }

    /// A file's modification time, in seconds since 1970.
    private static func modified(_ info: stat) -> Double {
        #if canImport(Darwin)
        Double(info.st_mtimespec.tv_sec) + Double(info.st_mtimespec.tv_nsec) / 1e9
        #else
        Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        #endif
    }

    /// Runs `body` holding the directory's lock, which other processes take to trim it too.
    private func withLock(_ body: () -> Void) {
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return body() }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 && errno == EINTR {}
        body()
        flock(descriptor, LOCK_UN)
    }
}
