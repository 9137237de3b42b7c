import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The C library's `open`, `write` and `close`, named apart from the methods of ``FileSink``.
private func systemOpen(_ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t) -> Int32 {
    open(path, flags, mode)
}

private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}

private func systemClose(_ descriptor: Int32) -> Int32 { close(descriptor) }

/// The files of one download beside its destination: the partial body (`.NAME.download`) and what a later
/// attempt needs to resume it (`.NAME.download.json`: the URL and the validator that must still match).
struct DownloadFiles {
    /// What a resumed request must send to get the rest of the same file.
    struct Resumption: Codable, Equatable {
        var url: String
        /// A strong `ETag`, or else the `Last-Modified` date, sent as `If-Range`.
        var validator: String
    }

    /// What a later download of the same URL sends to learn whether the finished file is still current: the
    /// validators of the response it came from, and the file's size and modification time then, so that a file
    /// changed since is never taken for the server's.
    struct Completion: Codable, Equatable {
        var url: String
        var eTag: String?
        var lastModified: String?
        var size: Int64
        var modified: Double
    }

    let destination: URL
    let partial: URL
    let info: URL
    /// `.NAME.validators.json`: the ``Completion`` of the finished file.
    let validators: URL

    init(destination: URL) {
        self.destination = destination
        let folder = destination.deletingLastPathComponent()
        partial = folder.appendingPathComponent(".\(destination.lastPathComponent).download")
        info = folder.appendingPathComponent(".\(destination.lastPathComponent).download.json")
        validators = folder.appendingPathComponent(".\(destination.lastPathComponent).validators.json")
    }

    /// The destination's size and modification time, or `nil` when it is not there.
    private func destinationStamp() -> (size: Int64, modified: Double)? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: destination.path),
            let size = (attributes[.size] as? NSNumber)?.int64Value,
            let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSinceReferenceDate
        else { return nil }
        return (size, modified)
    }

    /// Notes the validators of the response the finished file came from; forgets them when it named none.
    func rememberCompletion(of url: URL, headers: HTTPHeaders) {
        let eTag = headers[.eTag]
        let lastModified = headers[.lastModified]
        guard eTag != nil || lastModified != nil, let stamp = destinationStamp(),
            let data = try? JSONEncoder().encode(
                Completion(
                    url: url.absoluteString,
                    eTag: eTag,
                    lastModified: lastModified,
                    size: stamp.size,
                    modified: stamp.modified
                )
            )
        else {
            try? FileManager.default.removeItem(at: validators)
            return
        }
        try? data.write(to: validators, options: .atomic)
    }

    /// The validators of the finished file at the destination, when it came from `url` and has not changed since.
    func completion(for url: URL) -> Completion? {
        guard let data = try? Data(contentsOf: validators),
            let saved = try? JSONDecoder().decode(Completion.self, from: data), saved.url == url.absoluteString,
            let stamp = destinationStamp(), stamp.size == saved.size, stamp.modified == saved.modified
        else { return nil }
        return saved
    }

    /// How many bytes of `url` an earlier attempt left, with the validator to resume them; `nil` when there is
    /// nothing to resume (no partial file, another URL, or no validator the server could check).
    func resumption(for url: URL) -> DownloadPlan.Kept? {
        guard let data = try? Data(contentsOf: info),
            let saved = try? JSONDecoder().decode(Resumption.self, from: data), saved.url == url.absoluteString,
            let attributes = try? FileManager.default.attributesOfItem(atPath: partial.path),
            let size = (attributes[.size] as? NSNumber)?.int64Value, size > 0
        else { return nil }
        return DownloadPlan.Kept(bytes: size, validator: saved.validator)
    }

    /// The validator a response names for its file: a strong `ETag`, or else `Last-Modified`.
    static func validator(in headers: HTTPHeaders) -> String? {
        let etag = headers[.eTag].flatMap { $0.hasPrefix("W/") ? nil : $0 }
        return etag ?? headers[.lastModified]
    }

    /// Remembers how to resume `url` from a response that names a validator; forgets it otherwise.
    func remember(_ url: URL, headers: HTTPHeaders) {
        guard let validator = Self.validator(in: headers),
            let data = try? JSONEncoder().encode(Resumption(url: url.absoluteString, validator: validator))
        else {
            try? FileManager.default.removeItem(at: info)
            return
        }
        try? data.write(to: info, options: .atomic)
    }

    /// Opens the partial file to append to it, or to write it afresh when `restarting`.
    func open(restarting: Bool) throws -> FileSink {
        try FileSink(path: partial.path, truncating: restarting)
    }

    /// Moves the complete partial file over the destination in one step, and forgets how to resume it.
    func complete() throws {
        if rename(partial.path, destination.path) != 0 {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination.path])
        }
        try? FileManager.default.removeItem(at: info)
    }

    /// Deletes what an earlier attempt left.
    func discard() {
        try? FileManager.default.removeItem(at: partial)
        try? FileManager.default.removeItem(at: info)
    }
}

/// A `Content-Range` value: `bytes START-END/TOTAL` (TOTAL may be `*`), or `bytes */TOTAL` on a 416.
struct ContentRange: Equatable {
    var start: Int64?
    /// The last byte's offset.
    var end: Int64?
    var total: Int64?

    /// Reads `value`; `nil` unless its numbers are plain digits that fit an `Int64`, with the first byte's offset
    /// at most the last's, and the last before the total when the total is known (RFC 9110, 14.4).
    init?(_ value: String?) {
        guard let value, value.hasPrefix("bytes ") else { return nil }
        let parts = value.dropFirst("bytes ".count).split(
            separator: "/",
            maxSplits: 1,
            omittingEmptySubsequences: false
        )
        guard parts.count == 2 else { return nil }
        let totalText = parts[1].trimmingCharacters(in: .whitespaces)
        if totalText == "*" {
            total = nil
        } else {
            guard let total = Self.offset(totalText) else { return nil }
            self.total = total
        }
        if parts[0] == "*" {
            guard total != nil else { return nil }
            start = nil
        } else {
            let bounds = parts[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard bounds.count == 2, let start = Self.offset(bounds[0]), let end = Self.offset(bounds[1]), start <= end
            else { return nil }
            if let total, end >= total { return nil }
            self.start = start
            self.end = end
        }
    }

    /// A byte offset: one or more ASCII digits that fit an `Int64`.
    private static func offset(_ text: some StringProtocol) -> Int64? {
        text.isASCIIDigits ? Int64(text) : nil
    }
}

/// A file written with plain `write(2)` calls, from whichever thread delivers the bytes.
///
/// `FileHandle.write(contentsOf:)` on Linux costs about twice as much per chunk: writing a 1 GiB download with
/// it fell behind Linux URLSession's delegate callbacks, which piled up to a peak of +440 MiB, against +25 MiB
/// with `write(2)`.
final class FileSink: @unchecked Sendable {
    // Safe: `descriptor` is set once, and the writes are serialised by the body's one producer.
    private let descriptor: Int32
    private let path: String

    init(path: String, truncating: Bool) throws {
        self.path = path
        let flags = O_WRONLY | O_CREAT | O_APPEND | (truncating ? O_TRUNC : 0)
        let descriptor = systemOpen(path, flags, 0o644)
        guard descriptor >= 0 else { throw Self.failure(path, "could not be opened") }
        self.descriptor = descriptor
    }

    /// Writes all of `data`.
    func write(_ data: Data) throws {
        try data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let count = systemWrite(descriptor, base + offset, buffer.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw Self.failure(path, "could not be written: \(String(cString: strerror(errno)))")
                }
                offset += count
            }
        }
    }

    deinit { _ = systemClose(descriptor) }

    private static func failure(_ path: String, _ reason: String) -> CocoaError {
        CocoaError(
            .fileWriteUnknown,
            userInfo: [NSFilePathErrorKey: path, NSLocalizedDescriptionKey: "\(path) \(reason)"]
        )
    }
}
