import Foundation
import Testing

@testable import EndpointKit

@Suite(.timeLimit(.minutes(1))) struct ServerSentEventParserTests {
    private func events(_ lines: [String]) throws -> [ServerSentEvent] {
        var parser = ServerSentEventParser()
        return try lines.compactMap { line throws(EndpointError) in try parser.take(line) }
    }

    @Test("Fields make events at blank lines: data over several lines, type, id, retry; comments are ignored")
    func fields() throws {
        let parsed = try events([
            ": hello", "retry: 1500", "id: 7", "event: update", "data: first", "data:second", "", "data: next", "",
        ])

        #expect(
            parsed == [
                ServerSentEvent(type: "update", data: "first\nsecond", id: "7", retry: .milliseconds(1500)),
                ServerSentEvent(type: "message", data: "next", id: "7"),
            ]
        )
    }

    @Test("An event without data is not dispatched, and a bare field name is an empty value")
    func emptyEvents() throws {
        #expect(try events(["event: ping", "", "data", "", "id: 1", ""]) == [ServerSentEvent(data: "")])
    }

    @Test("An id with NUL and a retry that is not digits are ignored")
    func ignoredValues() throws {
        let parsed = try events(["id: ok", "id: a\u{0}b", "retry: 10s", "data: x", ""])

        #expect(parsed == [ServerSentEvent(data: "x", id: "ok")])
    }

    @Test("One leading byte order mark is ignored, so the first event is not lost; a second one is not")
    func byteOrderMark() throws {
        #expect(
            try events(["\u{FEFF}data: first", "", "\u{FEFF}data: second", ""]) == [ServerSentEvent(data: "first")]
        )
    }

    @Test("retry applies when its line is read, in a block without data too, and lasts into the next connection")
    func retryWithoutAnEvent() throws {
        var parser = ServerSentEventParser()
        _ = try parser.take("retry: 1500")
        _ = try parser.take("")
        let next = ServerSentEventParser(continuing: parser)

        #expect(parser.reconnectionDelay == .milliseconds(1500))
        #expect(next.reconnectionDelay == .milliseconds(1500))
    }

    @Test("An event's id becomes the last event ID only when its block ends: a cut in the middle keeps the one before")
    func idAppliesAtTheBlankLine() throws {
        var parser = ServerSentEventParser()
        _ = try parser.take("id: 1")
        _ = try parser.take("data: a")
        _ = try parser.take("")
        _ = try parser.take("id: 2")
        _ = try parser.take("data: b")

        #expect(parser.lastEventID == "1")
        #expect(ServerSentEventParser(continuing: parser).lastEventID == "1")
    }

    @Test("An empty id clears the last event ID, so none is sent on reconnection; an id-only block still sets one")
    func emptyIDClears() throws {
        var parser = ServerSentEventParser()
        let first = try ["id: 7", "data: a", ""].compactMap { line throws(EndpointError) in try parser.take(line) }
        _ = try ["id", ""].map { line throws(EndpointError) in try parser.take(line) }
        let cleared = parser.lastEventID
        _ = try ["id: 9", ""].map { line throws(EndpointError) in try parser.take(line) }

        #expect(first.map(\.id) == ["7"])
        #expect(cleared == nil)
        #expect(parser.lastEventID == "9")
    }

    @Test("An event that never ends fails with responseTooLarge once it passes the line limit")
    func endlessEvent() throws {
        var parser = ServerSentEventParser()
        let line = "data: " + String(repeating: "x", count: 64 * 1024)

        let error = try #require(throws: EndpointError.self) {
            for _ in 0..<100 { _ = try parser.take(line) }
        }

        #expect(error.kind == .responseTooLarge)
    }

    @Test("Many events below the limit each are read, however much the stream carries in all")
    func limitIsPerEvent() throws {
        var parser = ServerSentEventParser()
        let line = "data: " + String(repeating: "x", count: 64 * 1024)
        var count = 0

        for _ in 0..<100 {
            _ = try parser.take(line)
            if try parser.take("") != nil { count += 1 }
        }

        #expect(count == 100)
    }
}
