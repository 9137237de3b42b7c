import Foundation
import Testing

@testable import EndpointKit

@Suite(.timeLimit(.minutes(1))) struct LineSequenceTests {
    private func lines(_ chunks: [String]) async throws -> [String] {
        let body = ResponseBody(
            length: nil,
            chunks: AsyncThrowingStream { continuation in
                for chunk in chunks { continuation.yield(Data(chunk.utf8)) }
                continuation.finish()
            }
        )
        var lines: [String] = []
        for try await line in LineSequence(body) { lines.append(line) }
        return lines
    }

    @Test("Lines split at LF and CRLF across chunk boundaries, and a last line without a break is kept")
    func splitting() async throws {
        #expect(try await lines(["a\r", "\nb", "c\n", "\n", "d"]) == ["a", "bc", "", "d"])
    }

    @Test("A body that ends without a line break ends after its last line (found by fuzzing: it crashed)")
    func endsAfterLastLine() async throws {
        #expect(try await lines(["\u{0}"]) == ["\u{0}"])
    }
}
