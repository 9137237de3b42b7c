import Foundation

/// Writes one attempt of a download into its partial file, deciding from the response head where the body
/// goes: appended after the bytes kept from before (a `206` for exactly the range asked), written afresh (any
/// other 2xx), or nowhere (anything else, left for the client to read as an error).
///
/// It can decide on the transport's thread as the head arrives (``TransportRequest/bodySink``), or afterwards
/// for transports that do not look at the sink; either way it decides once per head and counts what it wrote.
final class DownloadWriter: Sendable {
    /// Where the current head's body goes.
    struct Plan: Sendable, Equatable {
        /// Bytes of the partial file kept before the body.
        var start: Int64
        /// The whole file's size when the head says it.
        var expected: Int64?
        /// Where the file should end once this body is written: ``expected``, or the end of the part a `206`
        /// sends when it is not the rest of the file.
        var end: Int64?
    }

    private struct State {
        var plan: Plan?
        var file: FileSink?
        var written: Int64 = 0
    }

    private let files: DownloadFiles
    private let resumedBytes: Int64?
    /// The validator sent with `If-Range`: a `206` that names another is a part of another file.
    private let validator: String?
    /// What an earlier download had written, which this one resumed: the progress reports it, whichever part of
    /// the file this writer writes.
    private let resumedFrom: Int64
    private let report: @Sendable (DownloadProgress) -> Void
    private let state = Locked(State())

    /// Creates the writer of one request's body.
    ///
    /// - Parameters:
    ///   - files: The download's partial file and its note.
    ///   - resumedBytes: The bytes of the partial file the request asked to continue after, or `nil` for none.
    ///   - validator: The validator the request sent with `If-Range`, or `nil` for none.
    ///   - resumedFrom: The bytes an earlier download left, for progress; ignored when the body starts over.
    ///   - report: Called with progress as the body is written.
    init(
        files: DownloadFiles,
        resumedBytes: Int64?,
        validator: String?,
        resumedFrom: Int64,
        report: @escaping @Sendable (DownloadProgress) -> Void
    ) {
        self.files = files
        self.resumedBytes = resumedBytes
        self.validator = validator
        self.resumedFrom = resumedFrom
        self.report = report
    }

    /// The plan for the last head that had a body to write, or `nil`.
    var plan: Plan? { state.withLock { $0.plan } }

    /// The partial file's name, for messages.
    var partialName: String { files.partial.lastPathComponent }

    /// Bytes of the file written so far, those kept from before included.
    var written: Int64 { state.withLock { $0.written } }

    /// The plan for a head: `nil` for one whose body is not the file.
    func plan(for statusCode: Int, headers: HTTPHeaders, length: Int64?) -> Plan? {
        if statusCode == 206 {
            guard let resumedBytes, let range = ContentRange(headers["Content-Range"]), range.start == resumedBytes
            else { return nil }
            // A server that ignores If-Range sends a part of the file as it is now, which may not be the file kept.
            if let validator, let named = DownloadFiles.validator(in: headers), named != validator { return nil }
            return Plan(start: resumedBytes, expected: range.total, end: range.end.map { $0 + 1 } ?? range.total)
        }
        guard (200..<300).contains(statusCode) else { return nil }
        return Plan(start: 0, expected: length, end: length)
    }

    /// Opens the partial file for `head` and returns the function that writes the body into it, or `nil` when
    /// this head's body is not the file (or the file cannot be opened: the client then reads the body itself).
    func writer(statusCode: Int, headers: HTTPHeaders, length: Int64?) -> (@Sendable (Data) throws -> Void)? {
        guard let plan = plan(for: statusCode, headers: headers, length: length),
            let file = try? files.open(restarting: plan.start == 0)
        else { return nil }
        state.withLock { state in
            state.plan = plan
            state.file = file
            state.written = plan.start
        }
        report(DownloadProgress(bytesWritten: plan.start, expectedBytes: plan.expected, resumedFrom: resumed(plan)))
        return { [self] chunk in try self.write(chunk) }
    }

    private func write(_ chunk: Data) throws {
        let (file, plan, total) = state.withLock { state -> (FileSink?, Plan?, Int64) in
            state.written += Int64(chunk.count)
            return (state.file, state.plan, state.written)
        }
        guard let file, let plan else { return }
        try file.write(chunk)
        report(DownloadProgress(bytesWritten: total, expectedBytes: plan.expected, resumedFrom: resumed(plan)))
    }

    /// The bytes an earlier download had written that this one kept: none when the body starts over.
    private func resumed(_ plan: Plan) -> Int64 { plan.start == 0 ? 0 : resumedFrom }

    /// Closes the file, so that it can be moved into place.
    func close() {
        state.withLock { $0.file = nil }
    }
}
