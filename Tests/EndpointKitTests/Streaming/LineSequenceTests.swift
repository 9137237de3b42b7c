import Foundation
import Testing

@testable import EndpointKit

@Suite(.timeLimit(.minutes(1))) struct LineSequenceTests {
    private func lines(_ chunks: [String], splitsAtCarriageReturn: Bool = false) async throws -> [String] {
        let body = ResponseBody(
            length: nil,
            chunks: AsyncThrowingStream { continuation in
                for chunk in chunks { continuation.yield(Data(chunk.utf8)) }
                continuation.finish()
            }
        )
        var lines: [String] = []
        for try await line in LineSequence(body, splitsAtCarriageReturn: splitsAtCarriageReturn) {
            lines.append(line)
        }
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

    @Test("Plain lines keep a CR that is not before an LF")
    func bareCarriageReturnIsText() async throws {
        #expect(try await lines(["a\rb\n", "c\r"]) == ["a\rb", "c\r"])
    }

    @Test(
        "Event-stream lines end at CRLF, LF or a CR alone, wherever the chunks split them",
        arguments: [
            ["a\rb\r\nc\nd\r", "e"],
            ["a\r", "b\r", "\nc\n", "d\re"],
            ["a", "\r", "b", "\r", "\n", "c", "\n", "d", "\r", "e"],
        ]
    )
    func eventStreamLineEnds(chunks: [String]) async throws {
        #expect(try await lines(chunks, splitsAtCarriageReturn: true) == ["a", "b", "c", "d", "e"])
    }

    @Test("An event stream's CR at the very end ends the last line, and CR CR is an empty line")
    func eventStreamTrailingCarriageReturn() async throws {
        #expect(try await lines(["a\r\r", "b\r"], splitsAtCarriageReturn: true) == ["a", "", "b"])
    }

    @Test(
        "A line one byte over the 1 MiB limit fails with responseTooLarge wherever the chunks split it",
        arguments: [
            "one chunk with its line break", "the break in the next chunk", "no break at the end", "a CR break",
            "split in two with the break",
        ]
    )
    func lineLimitHoldsWhateverTheSplit(split: String) async throws {
        let long = String(repeating: "x", count: LineSequence.maximumLineLength + 1)
        let half = String(repeating: "x", count: LineSequence.maximumLineLength / 2)
        let chunks: [String] =
            switch split {
            case "one chunk with its line break": [long + "\nnext\n"]
            case "the break in the next chunk": [long, "\nnext\n"]
            case "no break at the end": [long]
            case "a CR break": [long + "\r"]
            default: [half, half + "x\nnext\n"]
            }

        let error = try await #require(throws: EndpointError.self) {
            try await lines(chunks, splitsAtCarriageReturn: split == "a CR break")
        }

        #expect(error.kind == .responseTooLarge)
    }

    @Test("A line of exactly 1 MiB is accepted, its break in the same chunk or held back as a lone CR")
    func lineAtTheLimit() async throws {
        let longest = String(repeating: "x", count: LineSequence.maximumLineLength)

        #expect(try await lines([longest + "\nb\n"]) == [longest, "b"])
        #expect(try await lines([longest + "\r", "\nb"], splitsAtCarriageReturn: true) == [longest, "b"])
    }
}
