import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a ``ModelLoader`` keeps the values the server confirmed, so that a CLI or an app starts with the values
/// it had: ``DiskModelPersistence``, or your own.
///
/// A loader reads every stored model once, when it is made (they start stale: shown at once, revalidated when
/// asked for), and saves each value the server confirms (a load, a write's answer, a put) under a key of its
/// request. Every method may be called from any task at once.
public protocol ModelPersistence: Sendable {
    /// Every stored model, encoded.
    func storedModels() -> [Data]
    /// Stores `data`, the newest confirmed value for `key`, replacing what was stored for it.
    func save(_ data: Data, forKey key: String)
    /// Removes everything.
    func removeAll()
}

/// A ``ModelPersistence`` in a directory you name, with the HTTP cache's disk rules: each value written to a
/// temporary file and renamed into place (a crash mid-write leaves the old value or none, and a file that does
/// not read back whole is ignored), safe when several processes share the directory, bounded (past
/// ``maximumCount`` models or ``maximumSize`` bytes, the least recently saved go first), files named by keyed
/// hashes and readable by their
/// owner only, and everything under `v1/` so that another release's format is ignored rather than misread.
///
///     let loader = ModelLoader<Item>(client: client, persistence: try DiskModelPersistence(directory: folder)) {
///         .item($0)
///     }
public final class DiskModelPersistence: ModelPersistence {
    /// The directory given.
    public let directory: URL
    /// The most models kept; past it, the least recently saved are removed.
    public let maximumCount: Int
    /// The most bytes the stored models may take together; past it, the least recently saved are removed, and a
    /// model larger than it is not stored.
    public let maximumSize: Int
    /// What opening the directory found damaged and repaired (a key file cut short, a folder that was a file), one
    /// sentence each; empty when it was whole. Damage never stops the persistence from opening: it starts empty.
    public let repairs: [String]
    /// Saves, and bytes saved, since the directory was last measured.
    private let sinceTrim = Locked((saves: 0, bytes: 0))
    private let models: URL
    private let temporary: URL
    private let authenticator: SHA256.Authenticator

    static let formatMark = Array("EKM1".utf8)
    static let endMark = Array("EKM.".utf8)

    /// Opens (or creates) the persistence in `directory`, keeping at most `maximumCount` models (10,000 unless
    /// given) of at most `maximumSize` bytes together (64 MiB unless given).
    ///
    /// - Throws: ``EndpointError/Kind/invalidRequest`` when the directory cannot be created or written to.
    public init(directory: URL, maximumCount: Int = 10_000, maximumSize: Int = 64 << 20) throws(EndpointError) {
        self.directory = directory
        self.maximumCount = max(1, maximumCount)
        self.maximumSize = max(0, maximumSize)
        let root = directory.appendingPathComponent("v1", isDirectory: true)
        models = root.appendingPathComponent("models", isDirectory: true)
        temporary = root.appendingPathComponent("tmp", isDirectory: true)
        do {
            let opened = try PrivateDirectory.prepare(
                root: root,
                folders: [directory, root, models, temporary],
                entries: models,
                temporary: temporary
            )
            authenticator = SHA256.Authenticator(key: opened.secret)
            repairs = opened.repairs
        } catch {
            throw EndpointError(
                .invalidRequest,
                "the model directory \(directory.path) cannot be used: \(error)",
                underlyingError: error
            )
        }
    }

    /// Every stored model that reads back whole.
    public func storedModels() -> [Data] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: models.path)) ?? []
        return names.compactMap { name in
            guard let bytes = try? Data(contentsOf: models.appendingPathComponent(name)) else { return nil }
            return Self.decode(bytes)
        }
    }

    /// Writes `data` to a temporary file and renames it over the key's file.
    public func save(_ data: Data, forKey key: String) {
        let name = authenticator.code(for: key).prefix(20).hexadecimal
        let file = models.appendingPathComponent(name)
        guard data.count + Self.formatMark.count + Self.endMark.count <= maximumSize else {
            // Too large to keep: an older value of it must not stand in for it either.
            unlink(file.path)
            return
        }
        var bytes = Data(Self.formatMark)
        bytes.append(data)
        bytes.append(contentsOf: Self.endMark)
        PrivateFile.write(bytes, to: file, through: temporary)
        // Measured now and then, not on every save: a directory listing per save would cost more than the save.
        let due = sinceTrim.withLock { since -> Bool in
            since.saves += 1
            since.bytes += bytes.count
            guard since.saves >= max(1, maximumCount / 10) || since.bytes >= max(1, maximumSize / 10) else {
                return false
            }
            since = (0, 0)
            return true
        }
        if due { trim() }
    }

    /// Removes the least recently saved models past ``maximumCount`` and ``maximumSize``.
    func trim() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: models.path)) ?? []
        let files = names.map { name -> (path: String, saved: Date, size: Int) in
            let path = models.appendingPathComponent(name).path
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
            let saved = attributes?[.modificationDate] as? Date ?? .distantPast
            return (path, saved, (attributes?[.size] as? NSNumber)?.intValue ?? 0)
        }
        var count = files.count
        var size = files.reduce(0) { $0 + $1.size }
        for file in files.sorted(by: { $0.saved < $1.saved }) where count > maximumCount || size > maximumSize {
            unlink(file.path)
            count -= 1
            size -= file.size
        }
    }

    /// Removes every stored model.
    public func removeAll() {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: models.path)) ?? [] {
            unlink(models.appendingPathComponent(name).path)
        }
    }

    /// The model bytes of a whole file of this format, or `nil`.
    static func decode(_ bytes: Data) -> Data? {
        guard bytes.count >= formatMark.count + endMark.count, Array(bytes.prefix(4)) == formatMark,
            Array(bytes.suffix(4)) == endMark
        else { return nil }
        return bytes.dropFirst(4).dropLast(4)
    }
}
