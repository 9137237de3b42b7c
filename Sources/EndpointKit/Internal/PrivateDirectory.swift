import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What both disk stores (the HTTP cache's and the models') open: folders readable by their owner only, and a
/// secret that every process using the directory shares. Damage never blocks opening: a key file cut short or a
/// folder that is not one is replaced, the entries that depended on it are removed, and each repair is reported.
struct PrivateDirectory {
    /// The directory's secret.
    var secret: [UInt8]
    /// What opening found damaged and repaired, one sentence each; empty for a whole directory.
    var repairs: [String] = []

    /// Opens `root` with `folders` inside it (created when missing) and its secret; `entries` is the folder whose
    /// contents are removed when the secret had to be replaced.
    ///
    /// - Throws: What the file system says when a folder cannot be made or the secret cannot be written.
    static func prepare(root: URL, folders: [URL], entries: URL, temporary: URL) throws -> PrivateDirectory {
        var repairs: [String] = []
        for folder in folders where try makeFolder(folder) {
            repairs.append("\(folder.lastPathComponent) was not a folder: it was replaced by an empty one")
        }
        let (secret, damage) = try sharedSecret(in: root, temporaryFolder: temporary)
        if let damage {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: entries.path)) ?? [] {
                try? FileManager.default.removeItem(at: entries.appendingPathComponent(name))
            }
            repairs.append("the key file was damaged (\(damage)): a new one was made, and the stored entries removed")
        }
        return PrivateDirectory(secret: secret, repairs: repairs)
    }

    /// Creates `folder` (mode 0700) when missing; returns whether something that was not a folder stood there
    /// and was removed first. A folder that cannot be made (no permission, a read-only disk) throws: that is no
    /// damage a start can repair.
    private static func makeFolder(_ folder: URL) throws -> Bool {
        var isFolder: ObjCBool = false
        var replaced = false
        if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), !isFolder.boolValue {
            replaced = (try? FileManager.default.removeItem(at: folder)) != nil
        }
        try FileManager.default.createDirectory(
            at: folder,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        return replaced
    }

    /// The secret every process using the directory shares: made once, by whichever process comes first, and
    /// made again (one process at a time, under `flock(2)`) when what is there is not a whole secret. Returns the
    /// damage found, if any.
    static func sharedSecret(in root: URL, temporaryFolder: URL) throws -> (secret: [UInt8], damage: String?) {
        let path = root.appendingPathComponent("secret")
        for _ in 0..<4 {
            if let existing = try? Data(contentsOf: path), existing.count == 32 { return (Array(existing), nil) }
            let fresh = SHA256.Authenticator.randomKey()
            let candidate = temporaryFolder.appendingPathComponent(UUID().uuidString)
            try Data(fresh).write(to: candidate)
            chmod(candidate.path, 0o600)
            // link(2) never replaces: of two processes making the secret at once, one wins and both read it.
            let linked = link(candidate.path, path.path) == 0
            defer { unlink(candidate.path) }
            if linked { return (fresh, nil) }
            if let repaired = try replaceDamaged(path, with: candidate, fresh: fresh, lock: root) { return repaired }
        }
        throw CocoaError(.fileReadCorruptFile)
    }

    /// Replaces what stands at `path` when it is still not a whole secret once this process holds the lock.
    private static func replaceDamaged(_ path: URL, with candidate: URL, fresh: [UInt8], lock root: URL) throws
        -> (secret: [UInt8], damage: String?)?
    {
        let descriptor = open(root.appendingPathComponent("secret.lock").path, O_CREAT | O_RDWR, 0o600)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        flock(descriptor, LOCK_EX)
        if let existing = try? Data(contentsOf: path), existing.count == 32 { return (Array(existing), nil) }
        guard FileManager.default.fileExists(atPath: path.path) else { return nil }
        let damage = (try? Data(contentsOf: path)).map { "\($0.count) bytes of 32" } ?? "not a readable file"
        try? FileManager.default.removeItem(at: path)
        guard link(candidate.path, path.path) == 0 else { return nil }
        return (fresh, damage)
    }
}
