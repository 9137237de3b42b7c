import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Files of the disk stores (the HTTP cache's and the models'): readable by their owner only, and written whole or
/// not at all.
enum PrivateFile {
    /// Writes `data` to a new file in `temporaryFolder`, then renames it over `file`: rename(2) replaces the old
    /// file at once, so a reader (or a process after a crash) finds the old file or the new one, whole. Returns
    /// whether the new file is in place; a failure leaves no temporary file behind.
    @discardableResult
    static func write(_ data: Data, to file: URL, through temporaryFolder: URL) -> Bool {
        let temporary = temporaryFolder.appendingPathComponent(UUID().uuidString)
        do {
            try data.write(to: temporary)
        } catch {
            unlink(temporary.path)
            return false
        }
        chmod(temporary.path, 0o600)
        guard rename(temporary.path, file.path) == 0 else {
            unlink(temporary.path)
            return false
        }
        return true
    }
}
