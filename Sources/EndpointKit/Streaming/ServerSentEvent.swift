import Foundation

/// One Server-Sent Event, as the `text/event-stream` format defines it.
public struct ServerSentEvent: Sendable, Equatable {
    /// The event type: the `event` field, or `"message"` when it has none.
    public var type: String
    /// The `data` lines, joined with `\n`.
    public var data: String
    /// The last event ID the stream set, sent as `Last-Event-ID` when it reconnects; `nil` before any.
    public var id: String?
    /// The reconnection delay the server asked for with a `retry` field, if this event carried one.
    public var retry: Duration?

    /// Creates an event.
    public init(type: String = "message", data: String, id: String? = nil, retry: Duration? = nil) {
        self.type = type
        self.data = data
        self.id = id
        self.retry = retry
    }
}

/// Turns the lines of an event stream into events, by the rules of the HTML standard: `event`, `data` (over
/// several lines), `id` and `retry` fields, comments (`:`), and a blank line that dispatches.
///
/// One parser reads one connection. A leading byte order mark is ignored; `retry` takes effect when its line is
/// read, whether or not an event follows; an `id` becomes the stream's last event ID only when its event block
/// ends (so a connection cut in the middle of an event resumes before it), and an empty `id` clears it. A pending
/// event larger than ``maximumEventSize`` fails with ``EndpointError/Kind/responseTooLarge``.
struct ServerSentEventParser: Sendable {
    /// The largest event kept while it is read, in bytes of its fields: the same bound as a line's.
    static let maximumEventSize = LineSequence.maximumLineLength

    private var type = ""
    private var data: [String] = []
    private var hasData = false
    private var pendingSize = 0
    private var isFirstLine = true
    /// The ID the current event block set, applied when the block ends; `""` clears the last event ID.
    private var idBuffer: String?
    /// The last event ID, sent as `Last-Event-ID` on reconnection; `nil` before any, or after an empty `id`.
    private(set) var lastEventID: String?
    /// The reconnection delay the stream asked for last, kept across connections.
    private(set) var reconnectionDelay: Duration?
    private var retry: Duration?

    /// A parser for a new connection, which keeps the last event ID and reconnection delay of the one before.
    init(continuing previous: ServerSentEventParser? = nil) {
        lastEventID = previous?.lastEventID
        reconnectionDelay = previous?.reconnectionDelay
        idBuffer = lastEventID
    }

    /// Takes one line; returns the event it completes, if any.
    ///
    /// - Throws: ``EndpointError/Kind/responseTooLarge`` when the pending event grows past ``maximumEventSize``.
    mutating func take(_ line: String) throws(EndpointError) -> ServerSentEvent? {
        var line = Substring(line)
        if isFirstLine {
            isFirstLine = false
            if line.unicodeScalars.first == "\u{FEFF}" { line = Substring(line.unicodeScalars.dropFirst()) }
        }
        if line.isEmpty { return dispatch() }
        if line.hasPrefix(":") { return nil }
        let field: Substring
        var value: Substring
        if let colon = line.firstIndex(of: ":") {
            field = line[..<colon]
            value = line[line.index(after: colon)...]
            if value.hasPrefix(" ") { value = value.dropFirst() }
        } else {
            field = line
            value = ""
        }
        switch field {
        case "event":
            type = String(value)
            try grow(by: 0)
        case "data":
            data.append(String(value))
            hasData = true
            try grow(by: value.utf8.count + 1)
        case "id":
            // An ID with NUL is ignored, as the standard says.
            if !value.unicodeScalars.contains("\u{0}") { idBuffer = String(value) }
        case "retry":
            if value.isASCIIDigits {
                // More digits than an Int holds is a very long delay, which the reconnect policy caps.
                retry = .milliseconds(Int(value) ?? Int.max)
                reconnectionDelay = retry
            }
        default: break
        }
        return nil
    }

    /// Counts what the pending event holds, failing once it is larger than ``maximumEventSize``.
    private mutating func grow(by size: Int) throws(EndpointError) {
        pendingSize += size
        guard pendingSize + type.utf8.count > Self.maximumEventSize else { return }
        throw EndpointError(
            .responseTooLarge,
            "an event of the stream is larger than \(Self.maximumEventSize) bytes and has not ended"
        )
    }

    /// Ends the current event block at a blank line: its ID becomes the last event ID, and it is dispatched when
    /// it has data.
    private mutating func dispatch() -> ServerSentEvent? {
        defer {
            type = ""
            data = []
            hasData = false
            pendingSize = 0
            retry = nil
        }
        lastEventID = idBuffer.flatMap { $0.isEmpty ? nil : $0 }
        guard hasData else { return nil }
        return ServerSentEvent(
            type: type.isEmpty ? "message" : type,
            data: data.joined(separator: "\n"),
            id: lastEventID,
            retry: retry
        )
    }
}
