import EndpointKit
import Foundation

/// A transport that records traffic to a HAR 1.2 file and replays it, at the transport seam, so that a suite can
/// run offline against real responses captured once, and the file opens in browser tools, mitmproxy or Charles.
///
///     // Record once against the real server (always live; save() overwrites the file):
///     let recorder = try HARTransport(file: har, mode: .record, live: URLSessionTransport())
///     let live = EndpointClient(environment: environment, transport: recorder)
///     _ = try await live.response(for: .item(1))
///     try recorder.save()
///
///     // Replay with no server: a request with no recorded answer fails at once, naming the nearest ones.
///     let replay = EndpointClient(environment: environment, transport: try HARTransport(file: har, mode: .replay))
///
/// - ``Mode/replay``: only recorded answers; a request that matches none fails at once with
///   ``EndpointError/Kind/notRecorded``, naming the request and the nearest recorded entries.
/// - ``Mode/record``: every request goes to the live transport and is recorded; ``save()`` overwrites the file.
/// - ``Mode/recordMissing``: recorded answers where there are some, the live transport and a new entry otherwise;
///   ``save()`` writes the old entries and the new.
///
/// Recordings hold no secret (see ``HARRedaction``). Bodies are recorded as received, streams and downloads
/// included, up to `maximumBodySize` each (1 MiB unless given); a larger body keeps its size and a comment but
/// not its bytes, and replaying its entry fails with ``EndpointError/Kind/notRecorded`` saying so. Matching is
/// ``HARMatching``'s. A replayed body streams in the chunks it was recorded in (16 KiB at most when they were not
/// recorded), and honours ``TransportOptions/body``. A streamed request body is read into memory, once, to be
/// matched and recorded, then sent from there: record large uploads from a file or from bytes instead.
public final class HARTransport: Transport {
    /// Where answers come from.
    public enum Mode: Sendable {
        /// Only from the file.
        case replay
        /// Only from the live transport, each exchange recorded.
        case record
        /// From the file when it has one, else from the live transport, recorded.
        case recordMissing
    }

    /// The HAR file read from (replaying) and written by ``save()``.
    public let file: URL
    /// Where answers come from.
    public let mode: Mode
    /// How requests are matched to recorded entries.
    public let matching: HARMatching
    let live: (any Transport)?
    let record: HARRecord
    let state: Locked<State>

    struct State {
        /// Every exchange, the file's first, then each new one as it ends.
        var items: [Recorded]
        /// Which items have answered a request already, by index.
        var used: Set<Int> = []
    }

    /// One recorded exchange: a response, or a failure.
    enum Recorded: Sendable {
        case entry(HARArchive.Entry)
        case failure(HARArchive.Failure)

        var request: HARArchive.Request {
            switch self {
            case .entry(let entry): entry.request
            case .failure(let failure): failure.request
            }
        }

        var startedDateTime: String {
            switch self {
            case .entry(let entry): entry.startedDateTime
            case .failure(let failure): failure.startedDateTime
            }
        }
    }

    /// Creates the transport.
    ///
    /// - Parameters:
    ///   - file: The HAR file. Replaying reads it now; ``Mode/recordMissing`` reads it when it exists.
    ///   - mode: Where answers come from.
    ///   - live: The transport that sends what is recorded; required unless `mode` is ``Mode/replay``.
    ///   - matching: How requests find their recorded entries.
    ///   - redaction: What is redacted; pass the client's ``RequestDefaults`` to add its sensitive names.
    ///   - maximumBodySize: The largest body, request or response, whose bytes are kept.
    /// - Throws: ``EndpointError/Kind/invalidRequest`` when the file cannot be read as HAR, or no live transport
    ///   is given to record with.
    public init(
        file: URL,
        mode: Mode,
        live: (any Transport)? = nil,
        matching: HARMatching = HARMatching(),
        redaction: HARRedaction = HARRedaction(),
        maximumBodySize: Int = 1 << 20
    ) throws {
        self.file = file
        self.mode = mode
        self.live = live
        self.matching = matching
        record = HARRecord(redaction: redaction, maximumBodySize: maximumBodySize)
        if mode != .replay, live == nil {
            throw EndpointError(.invalidRequest, "a HARTransport that records needs a live transport to send with")
        }
        var items: [Recorded] = []
        if mode == .replay || (mode == .recordMissing && FileManager.default.fileExists(atPath: file.path)) {
            do {
                let log = try HARArchive(contentsOf: file).log
                items = log.entries.map(Recorded.entry) + (log._failures ?? []).map(Recorded.failure)
            } catch {
                throw EndpointError(
                    .invalidRequest,
                    "\(file.path) cannot be read as HAR: \(error)",
                    underlyingError: error
                )
            }
        }
        state = Locked(State(items: items))
    }

    /// `false`: the client times each attempt itself. A replayed answer comes at once, and a recorded body that
    /// is collected is read here, through the recording, not by the live transport.
    public var enforcesTimeout: Bool { false }

    /// Everything recorded and loaded so far, sorted by start.
    public var archive: HARArchive {
        let items = state.withLock { $0.items }.sorted { $0.startedDateTime < $1.startedDateTime }
        return HARArchive(
            entries: items.compactMap { if case .entry(let entry) = $0 { entry } else { nil } },
            failures: items.compactMap { if case .failure(let failure) = $0 { failure } else { nil } }
        )
    }

    /// Writes ``archive`` to ``file``, atomically; a replaying transport has nothing to write.
    public func save() throws {
        guard mode != .replay else { return }
        try archive.write(to: file)
    }

    /// Answers from the recording, or sends live and records, as ``mode`` says.
    public func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse {
        if Task.isCancelled { throw EndpointError(.cancelled, "the task was cancelled before the request was sent") }
        let (body, sendable) = try await RequestBodyBytes.read(request)
        let (recorded, secrets) = record.request(request, body: body)
        if mode != .record {
            if let item = try claimEntry(for: recorded, summary: RequestSummary(request)) {
                switch item {
                case .entry(let entry): return try replay(entry, options: options, summary: RequestSummary(request))
                case .failure(let failure): throw await replay(failure, summary: RequestSummary(request))
                }
            }
        }
        return try await sendLive(sendable, recorded: recorded, secrets: secrets, options: options)
    }

    /// The first unused entry recorded for `request`; `nil` when there is none and misses go live; an error in
    /// replay mode.
    private func claimEntry(for request: HARArchive.Request, summary: RequestSummary) throws -> Recorded? {
        let key = matching.key(of: request)
        let (item, nearest, matches) = state.withLock { state -> (Recorded?, [Recorded], Int) in
            let order = state.items.indices.sorted {
                state.items[$0].startedDateTime < state.items[$1].startedDateTime
            }
            let candidates = order.filter { matching.key(of: state.items[$0].request) == key }
            if let index = candidates.first(where: { !state.used.contains($0) }) {
                state.used.insert(index)
                return (state.items[index], [], candidates.count)
            }
            let ranked = state.items.sorted {
                HARMatching.likeness(matching.key(of: $0.request), key)
                    > HARMatching.likeness(matching.key(of: $1.request), key)
            }
            return (nil, Array(ranked.prefix(3)), candidates.count)
        }
        if let item { return item }
        guard mode == .replay else { return nil }
        if Task.isCancelled { throw EndpointError(.cancelled, "the task was cancelled before the request was sent") }
        let shown = nearest.map { "\($0.request.method) \($0.request.url)" }
        let reason =
            matches > 0
            ? "all \(matches) recorded answers to it were used already"
            : "no recorded entry matches it"
                + (shown.isEmpty ? " (the recording is empty)" : "; the nearest: " + shown.joined(separator: "; "))
        throw EndpointError(.notRecorded, "\(reason) in \(file.lastPathComponent)", request: summary)
    }
}

extension EndpointError.Kind {
    /// A replaying ``HARTransport`` has no recorded answer for the request, or its answer's body was too large to
    /// be recorded. Nothing was sent.
    public static let notRecorded = EndpointError.Kind("notRecorded")
}
