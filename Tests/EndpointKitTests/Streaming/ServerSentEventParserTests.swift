import Foundation
import Testing

@testable import EndpointKit

@Suite(.timeLimit(.minutes(1))) struct ServerSentEventParserTests {
    private func events(_ lines: [String]) -> [ServerSentEvent] {
        var parser = ServerSentEventParser()
        return lines.compactMap { parser.take($0) }
    }

    @Test("Fields make events at blank lines: data over several lines, type, id, retry; comments are ignored")
    func fields() {
        let parsed = events([
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
    func emptyEvents() {
        #expect(events(["event: ping", "", "data", "", "id: 1", ""]) == [ServerSentEvent(data: "")])
    }

    @Test("An id with NUL and a retry that is not digits are ignored")
    func ignoredValues() {
        let parsed = events(["id: ok", "id: a\u{0}b", "retry: 10s", "data: x", ""])

        #expect(parsed == [ServerSentEvent(data: "x", id: "ok")])
    }
}
