import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One download's claim on its destination: an exclusive lock on `.NAME.download.lock` beside it, taken before
/// the request is sent and given up once the file is in place or the download has failed.
///
/// Two downloads to one destination would otherwise append to one partial file (a 2 MiB file became 4 MiB of
/// both, and one download reported it finished). The lock is `flock(2)`'s, so it holds between processes too,
/// and the system drops it if the process dies.
final class DownloadLock: Sendable {
    private let descriptor: Int32
    private let path: String

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    /// Claims `destination`, or fails at once, before anything is sent.
    ///
    /// - Throws: ``EndpointError/Kind/invalidRequest`` when the destination's folder does not exist or cannot be
    ///   written to, or when another download to the same destination is under way.
    static func claim(_ destination: URL) throws(EndpointError) -> DownloadLock {
        let folder = destination.deletingLastPathComponent()
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw EndpointError(
                .invalidRequest,
                "the download's destination folder \(folder.path) does not exist; nothing was sent"
            )
        }
        let path = folder.appendingPathComponent(".\(destination.lastPathComponent).download.lock").path
        // A lock file that the download holding it removed in the meantime is no claim: open it anew.
        for _ in 0..<8 {
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw EndpointError(
                    .invalidRequest,
                    "the download cannot be written beside \(destination.path): "
                        + "\(String(cString: strerror(errno))); nothing was sent"
                )
            }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                let reason = errno
                close(descriptor)
                if reason == EINTR { continue }
                throw EndpointError(
                    .invalidRequest,
                    "another download to \(destination.path) is under way; nothing was sent"
                )
            }
            var held = stat()
            var linked = stat()
            if fstat(descriptor, &held) == 0, stat(path, &linked) == 0, held.st_ino == linked.st_ino,
                held.st_dev == linked.st_dev
            {
                return DownloadLock(descriptor: descriptor, path: path)
            }
            close(descriptor)
        }
        throw EndpointError(.invalidRequest, "another download to \(destination.path) is under way; nothing was sent")
    }

    /// Gives the claim up: the lock file is removed while still locked, so that nobody locks a file that is gone.
    func release() {
        unlink(path)
        close(descriptor)
    }
}
