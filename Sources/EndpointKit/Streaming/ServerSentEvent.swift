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
struct ServerSentEventParser: Sendable {
    private var type = ""
    private var data: [String] = []
    private var hasData = false
    private(set) var lastEventID: String?
    private var retry: Duration?

    /// A parser for a new connection, which keeps the last event ID of the one before.
    init(lastEventID: String? = nil) { self.lastEventID = lastEventID }

    /// Takes one line; returns the event it completes, if any.
    mutating func take(_ line: String) -> ServerSentEvent? {
        if line.isEmpty { return dispatch() }
        if line.hasPrefix(":") { return nil }
        let field: Substring
        var value: Substring
        if let colon = line.firstIndex(of: ":") {
            field = line[..<colon]
            value = line[line.index(after: colon)...]
            if value.hasPrefix(" ") { value = value.dropFirst() }
        } else {
            field = Substring(line)
            value = ""
        }
        switch field {
        case "event": type = String(value)
        case "data":
            data.append(String(value))
            hasData = true
        case "id":
            // An ID with NUL is ignored, as the standard says.
            if !value.unicodeScalars.contains("\u{0}") { lastEventID = String(value) }
        case "retry":
            if !value.isEmpty, value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                let milliseconds = Int(value)
            {
                retry = .milliseconds(milliseconds)
            }
        default: break
        }
        return nil
    }

    /// Ends the current event at a blank line: dispatched when it has data.
    private mutating func dispatch() -> ServerSentEvent? {
        defer {
            type = ""
            data = []
            hasData = false
            retry = nil
        }
        guard hasData else { return nil }
        return ServerSentEvent(
            type: type.isEmpty ? "message" : type,
            data: data.joined(separator: "\n"),
            id: lastEventID,
            retry: retry
        )
    }
}
