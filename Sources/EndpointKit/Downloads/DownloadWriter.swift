import Foundation

/// Writes one attempt of a download into its partial file, deciding from the response head where the body
/// goes: appended after the bytes kept from before (a `206` for exactly the range asked), written afresh (any
/// other 2xx), or nowhere (anything else, left for the client to read as an error).
///
/// It can decide on the transport's thread as the head arrives (a ``BodySink``), or afterwards for transports
/// that do not write to sinks; either way it decides once per head, by
/// ``DownloadPlan/target(for:statusCode:headers:length:)``, and counts what it wrote.
final class DownloadWriter: Sendable {
    private struct State {
        var plan: DownloadPlan.Target?
        var file: FileSink?
        var written: Int64 = 0
    }

    private let files: DownloadFiles
    /// What the request asked for: a `206` for another range, or naming another validator, is not this file.
    private let ask: DownloadPlan.Ask
    /// What an earlier download had written, which this one resumed: the progress reports it, whichever part of
    /// the file this writer writes.
    private let resumedFrom: Int64
    private let report: @Sendable (DownloadProgress) -> Void
    private let state = Locked(State())

    /// Creates the writer of one request's body.
    ///
    /// - Parameters:
    ///   - files: The download's partial file and its note.
    ///   - ask: The range headers the request sent.
    ///   - resumedFrom: The bytes an earlier download left, for progress; ignored when the body starts over.
    ///   - report: Called with progress as the body is written.
    init(
        files: DownloadFiles,
        ask: DownloadPlan.Ask,
        resumedFrom: Int64,
        report: @escaping @Sendable (DownloadProgress) -> Void
    ) {
        self.files = files
        self.ask = ask
        self.resumedFrom = resumedFrom
        self.report = report
    }

    /// The plan for the last head that had a body to write, or `nil`.
    var plan: DownloadPlan.Target? { state.withLock { $0.plan } }

    /// The partial file's name, for messages.
    var partialName: String { files.partial.lastPathComponent }

    /// Bytes of the file written so far, those kept from before included.
    var written: Int64 { state.withLock { $0.written } }

    /// Opens the partial file for `head` and returns the function that writes the body into it, or `nil` when
    /// this head's body is not the file (or the file cannot be opened: the client then reads the body itself).
    func writer(statusCode: Int, headers: HTTPHeaders, length: Int64?) -> (@Sendable (Data) throws -> Void)? {
        guard let plan = DownloadPlan.target(for: ask, statusCode: statusCode, headers: headers, length: length),
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
        let (file, plan, total) = state.withLock { state -> (FileSink?, DownloadPlan.Target?, Int64) in
            state.written += Int64(chunk.count)
            return (state.file, state.plan, state.written)
        }
        guard let file, let plan else { return }
        try file.write(chunk)
        report(DownloadProgress(bytesWritten: total, expectedBytes: plan.expected, resumedFrom: resumed(plan)))
    }

    /// The bytes an earlier download had written that this one kept: none when the body starts over.
    private func resumed(_ plan: DownloadPlan.Target) -> Int64 { plan.start == 0 ? 0 : resumedFrom }

    /// Closes the file, so that it can be moved into place.
    func close() {
        state.withLock { $0.file = nil }
    }
}
