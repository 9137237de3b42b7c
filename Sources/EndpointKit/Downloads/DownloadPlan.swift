import Foundation

/// The decisions of a download, apart from its files and the network: what to ask for next given the partial
/// file kept, the response head, the validator and the part size, and what to do once a body is written.
///
/// Pure: ``EndpointClient/download(for:using:to:)`` executes it, doing the file work each step names, and every
/// branch is a unit test.
struct DownloadPlan: Equatable {
    /// A partial file kept from before: its size and the validator (`ETag` or `Last-Modified`) it was part of.
    struct Kept: Equatable {
        var bytes: Int64
        var validator: String
    }

    /// The range headers of the next request.
    struct Ask: Equatable {
        /// `Range`, or `nil` to ask for the whole file.
        var range: String?
        /// `If-Range`: the kept part's validator, so that a changed file comes back whole.
        var ifRange: String?
        /// The bytes of the partial file a `206` must continue after, or `nil` when only a whole file fits.
        var resumedBytes: Int64?
        /// Where the asked-for body starts.
        var start: Int64
    }

    /// Where a head's body goes in the file.
    struct Target: Equatable {
        /// Bytes of the partial file kept before the body.
        var start: Int64
        /// The whole file's size when the head says it.
        var expected: Int64?
        /// Where the file should end once this body is written: ``expected``, or the end of the part a `206`
        /// sends when it is not the rest of the file.
        var end: Int64?
    }

    /// What the executor does next.
    enum Next: Equatable {
        /// Send ``ask()`` now.
        case send
        /// Delete the partial file, then send ``ask()``: the file starts over.
        case sendAfterDiscarding
        /// Write this head's body to ``Target``.
        case write
        /// The file is whole: move it into place (made empty first when nothing was kept).
        case complete(creatingEmptyFile: Bool)
        /// The body ended short of what was announced: a transient failure; the partial file is kept.
        case fail(String)
        /// The error response stands: the plan has no use for it.
        case rethrow
        /// The server did not honour the resumption twice.
        case giveUp
    }

    /// The partial file kept, if any.
    private(set) var kept: Kept?
    /// The bytes asked for per request, or `nil` for the rest of the file at once.
    private(set) var partSize: Int64?
    /// How many times the file started over because the server did not honour a resumption.
    private(set) var restarts = 0
    private var isFirstRequest = true

    /// Restarts after which the download gives up.
    static let maxRestarts = 2

    /// A plan for a download that finds `kept` beside its destination, asking for parts of `partSize` bytes when
    /// set and the request can be sent once per part.
    init(kept: Kept?, partSize: Int?, canBeSentAgain: Bool) {
        self.kept = kept
        self.partSize = partSize.flatMap { $0 > 0 && canBeSentAgain ? Int64($0) : nil }
    }

    /// The range headers of the next request: the next part, the rest after what is kept, or the whole file.
    func ask() -> Ask {
        let start = kept?.bytes ?? 0
        var range: String?
        if let partSize {
            let (end, overflow) = start.addingReportingOverflow(partSize - 1)
            range = "bytes=\(start)-\(overflow ? Int64.max : end)"
        } else if kept != nil {
            range = "bytes=\(start)-"
        }
        return Ask(
            range: range,
            ifRange: kept?.validator,
            resumedBytes: partSize != nil ? start : kept?.bytes,
            start: start
        )
    }

    /// Where the body of a head answering `ask` goes, or `nil` when it is not the file: a `206` for another
    /// range than asked or naming another validator, or a status outside 2xx.
    static func target(for ask: Ask, statusCode: Int, headers: HTTPHeaders, length: Int64?) -> Target? {
        if statusCode == 206 {
            guard let resumed = ask.resumedBytes, let range = ContentRange(headers["Content-Range"]),
                range.start == resumed
            else { return nil }
            // A server that ignores If-Range sends a part of the file as it is now, which may not be the file kept.
            if let validator = ask.ifRange, let named = DownloadFiles.validator(in: headers), named != validator {
                return nil
            }
            return Target(start: resumed, expected: range.total, end: range.end.map { $0 + 1 } ?? range.total)
        }
        guard (200..<300).contains(statusCode) else { return nil }
        return Target(start: 0, expected: length, end: length)
    }

    /// After the pipeline failed with an error status `statusCode` (and a `Content-Range` total): a `416` to the
    /// first request for a range past the end completes a file that was already whole, or starts a stale one
    /// over; anything else stands.
    mutating func afterRefusal(statusCode: Int?, total: Int64?) -> Next {
        guard statusCode == 416, isFirstRequest, kept != nil || (partSize != nil && total == 0) else {
            return .rethrow
        }
        isFirstRequest = false
        if total == kept?.bytes ?? 0 { return .complete(creatingEmptyFile: kept == nil) }
        return restart()
    }

    /// After a head arrived: write its body when it has a ``Target``; otherwise (a part of another range or
    /// version of the file) start over.
    mutating func afterHead(_ target: Target?) -> Next {
        isFirstRequest = false
        return target == nil ? restart() : .write
    }

    /// After a body was written, `written` bytes of the file in all, for `target`, from a response with
    /// `statusCode`; `keptNow` is the partial file as it now stands, when it can be resumed.
    mutating func afterBody(written: Int64, target: Target, statusCode: Int, keptNow: Kept?) -> Next {
        if let end = target.end, written != end {
            return .fail("the download ended after \(written) of \(end) bytes; the next download resumes it")
        }
        let isPart = partSize != nil && statusCode == 206
        if let expected = target.expected, written != expected {
            // One part of the file: the next is asked for with the validator this one named. Without one, later
            // parts could not be checked against this one, so the file is asked for again, whole.
            guard isPart, written > target.start else {
                return .fail("the download ended after \(written) of \(expected) bytes; the next download resumes it")
            }
            if let keptNow {
                kept = keptNow
                return .send
            }
            return askWhole()
        }
        // A part of a file of unknown size: whether more follows cannot be told, so ask for it whole.
        if isPart, target.expected == nil { return askWhole() }
        return .complete(creatingEmptyFile: false)
    }

    private mutating func restart() -> Next {
        kept = nil
        restarts += 1
        return restarts >= Self.maxRestarts ? .giveUp : .sendAfterDiscarding
    }

    private mutating func askWhole() -> Next {
        kept = nil
        partSize = nil
        return .sendAfterDiscarding
    }
}
