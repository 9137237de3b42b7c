import Foundation

/// Lines and Server-Sent Events from a streamed body: however the bytes are cut into chunks, the lines are those
/// of the whole body split at `\n` (a `\r` right before one dropped), an event stream's lines those split at
/// `\r\n`, `\n` or `\r`, and the events parsed from them are valid: no event has an empty type or an ID with NUL.
enum EventStreamFuzz {
    static func run(_ input: inout FuzzInput) {
        let cuts = (0..<input.number(below: 8)).map { _ in Int(input.byte()) * 4 }
        let bytes = input.rest()

        var chunks: [Data] = []
        var start = 0
        for cut in cuts.sorted() where cut > start && cut < bytes.count {
            chunks.append(Data(bytes[start..<cut]))
            start = cut
        }
        chunks.append(Data(bytes[start...]))
        func body() -> ResponseBody {
            ResponseBody(
                length: nil,
                chunks: AsyncThrowingStream { continuation in
                    for chunk in chunks { continuation.yield(chunk) }
                    continuation.finish()
                }
            )
        }
        let lines = collect(LineSequence(body()))

        // Split at LF; a CR is dropped only before an LF, so not from the last piece, which has none after it.
        let pieces = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        var expected = pieces.enumerated().map { index, line in
            let ended = index < pieces.count - 1
            return String(decoding: ended && line.last == UInt8(ascii: "\r") ? line.dropLast() : line, as: UTF8.self)
        }
        if expected.last == "" { expected.removeLast() }
        require(lines == expected, "chunks \(chunks.map(\.count)) gave lines \(lines), not \(expected)")

        let streamLines = collect(LineSequence(body(), splitsAtCarriageReturn: true))
        let expectedStreamLines = eventStreamLines(bytes)
        require(
            streamLines == expectedStreamLines,
            "chunks \(chunks.map(\.count)) gave event-stream lines \(streamLines), not \(expectedStreamLines)"
        )

        var whole = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        for line in streamLines {
            do {
                if let event = try whole.take(line) { events.append(event) }
            } catch {
                require(false, "a line of at most 1 KiB failed the parser: \(error)")
            }
        }
        for event in events {
            require(!event.type.isEmpty, "an event without a type")
            require(!(event.id?.unicodeScalars.contains("\u{0}") ?? false), "an event ID with NUL")
        }
    }

    /// The lines of a whole event stream by the format's rule: each ends at CRLF, LF or CR; a last line without a
    /// break is kept.
    private static func eventStreamLines(_ bytes: [UInt8]) -> [String] {
        var lines: [String] = []
        var start = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") else {
                index += 1
                continue
            }
            lines.append(String(decoding: bytes[start..<index], as: UTF8.self))
            let crlf = byte == UInt8(ascii: "\r") && index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "\n")
            index += crlf ? 2 : 1
            start = index
        }
        if start < bytes.count { lines.append(String(decoding: bytes[start...], as: UTF8.self)) }
        return lines
    }

    /// Every line of `sequence`, read on a task of its own.
    private static func collect(_ sequence: LineSequence) -> [String] {
        let result = Locked([String]())
        let done = DispatchSemaphore(value: 0)
        Task {
            do {
                for try await line in sequence { result.withLock { $0.append(line) } }
            } catch {
                require(false, "reading lines failed: \(error)")
            }
            done.signal()
        }
        done.wait()
        return result.withLock { $0 }
    }
}
