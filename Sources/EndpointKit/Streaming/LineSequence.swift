import Foundation

/// The lines of a streamed body, as they arrive: UTF-8 text split at `\n`, with a `\r` before it removed.
///
/// A last line without a line break is returned too. A line longer than ``maximumLineLength`` fails with
/// ``EndpointError/Kind/responseTooLarge``, so that a server that never sends a line break cannot fill memory.
public struct LineSequence: AsyncSequence, Sendable {
    /// A line.
    public typealias Element = String
    /// Lines fail with ``EndpointError`` only.
    public typealias Failure = EndpointError

    /// The longest line accepted, in bytes: 1 MiB.
    public static let maximumLineLength = 1 << 20

    let body: ResponseBody
    /// Whether a `\r` alone ends a line too, as in an event stream, whose lines may end with `\r\n`, `\n` or `\r`.
    let splitsAtCarriageReturn: Bool

    init(_ body: ResponseBody, splitsAtCarriageReturn: Bool = false) {
        self.body = body
        self.splitsAtCarriageReturn = splitsAtCarriageReturn
    }

    /// Starts reading the body.
    public func makeAsyncIterator() -> Iterator {
        Iterator(chunks: body.makeAsyncIterator(), splitsAtCarriageReturn: splitsAtCarriageReturn)
    }

    /// Reads lines from the body's chunks.
    public struct Iterator: AsyncIteratorProtocol {
        var chunks: ResponseBody.Iterator
        let splitsAtCarriageReturn: Bool
        /// Bytes received and not yet returned start at `start`; the consumed front is dropped only once it is
        /// at least half of the buffer, so that taking a line costs its own length, not the buffer's.
        var buffer: [UInt8] = []
        var start = 0
        var searchedUpTo = 0
        var isFinished = false

        /// The next line, or `nil` at the end of the body.
        public mutating func next() async throws(EndpointError) -> String? {
            try await nextLine { String(decoding: $0, as: UTF8.self) }
        }

        /// The next line's bytes, for a reader that decodes them itself (JSON Lines) without making a `String`
        /// of them first.
        mutating func nextBytes() async throws(EndpointError) -> Data? {
            try await nextLine { Data($0) }
        }

        /// The next line, made by `make` from its bytes (which it must copy), or `nil` at the end of the body.
        private mutating func nextLine<Line>(_ make: (ArraySlice<UInt8>) -> Line) async throws(EndpointError)
            -> Line?
        {
            while true {
                if let (end, next) = lineBreak() {
                    // Checked here too: a long line whose break came in the same chunk as its end never waited.
                    guard end - start <= LineSequence.maximumLineLength else { throw chunks.named(Self.lineTooLong()) }
                    let line = make(buffer[start..<end])
                    start = next
                    searchedUpTo = start
                    if start * 2 >= buffer.count {
                        buffer.removeSubrange(..<start)
                        start = 0
                        searchedUpTo = 0
                    }
                    return line
                }
                if isFinished {
                    guard start < buffer.count else { return nil }
                    guard buffer.count - start <= LineSequence.maximumLineLength else {
                        throw chunks.named(Self.lineTooLong())
                    }
                    defer {
                        buffer = []
                        start = 0
                        searchedUpTo = 0
                    }
                    return make(buffer[start...])
                }
                // What was searched holds no line break: the line is at least that long (a `\r` waiting for the
                // byte after it is not part of the line).
                guard Swift.max(searchedUpTo, start) - start <= LineSequence.maximumLineLength else {
                    throw chunks.named(Self.lineTooLong())
                }
                let chunk: Data?
                do {
                    chunk = try await chunks.next()
                } catch {
                    throw EndpointError.wrapping(error)
                }
                if let chunk { buffer.append(contentsOf: chunk) } else { isFinished = true }
            }
        }

        private static func lineTooLong() -> EndpointError {
            EndpointError(
                .responseTooLarge,
                "a line of the streamed body is longer than \(LineSequence.maximumLineLength) bytes "
                    + "(LineSequence.maximumLineLength)"
            )
        }

        /// Where the next line ends and the one after it starts, or `nil` (with `searchedUpTo` moved past what
        /// was searched) when the buffer holds no complete line yet.
        private mutating func lineBreak() -> (end: Int, next: Int)? {
            let from = Swift.max(start, searchedUpTo)
            let lineFeed = UInt8(ascii: "\n")
            let carriageReturn = UInt8(ascii: "\r")
            guard splitsAtCarriageReturn else {
                guard let newline = buffer[from...].firstIndex(of: lineFeed) else {
                    searchedUpTo = buffer.count
                    return nil
                }
                let end = newline > start && buffer[newline - 1] == carriageReturn ? newline - 1 : newline
                return (end, newline + 1)
            }
            guard let index = buffer[from...].firstIndex(where: { $0 == lineFeed || $0 == carriageReturn }) else {
                searchedUpTo = buffer.count
                return nil
            }
            if buffer[index] == lineFeed { return (index, index + 1) }
            // A `\r` ends the line by itself, or with the `\n` after it: which, the next byte tells.
            if index + 1 < buffer.count { return (index, buffer[index + 1] == lineFeed ? index + 2 : index + 1) }
            if isFinished { return (index, index + 1) }
            searchedUpTo = index
            return nil
        }
    }
}
