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

    init(_ body: ResponseBody) { self.body = body }

    /// Starts reading the body.
    public func makeAsyncIterator() -> Iterator { Iterator(chunks: body.makeAsyncIterator()) }

    /// Reads lines from the body's chunks.
    public struct Iterator: AsyncIteratorProtocol {
        var chunks: ResponseBody.Iterator
        /// Bytes received and not yet returned start at `start`; the consumed front is dropped only once it is
        /// at least half of the buffer, so that taking a line costs its own length, not the buffer's.
        var buffer: [UInt8] = []
        var start = 0
        var searchedUpTo = 0
        var isFinished = false

        /// The next line, or `nil` at the end of the body.
        public mutating func next() async throws(EndpointError) -> String? {
            while true {
                if let newline = buffer[Swift.max(start, searchedUpTo)...].firstIndex(of: UInt8(ascii: "\n")) {
                    var end = newline
                    if end > start, buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                    let line = String(decoding: buffer[start..<end], as: UTF8.self)
                    start = newline + 1
                    searchedUpTo = start
                    if start * 2 >= buffer.count {
                        buffer.removeSubrange(..<start)
                        start = 0
                        searchedUpTo = 0
                    }
                    return line
                }
                searchedUpTo = buffer.count
                if isFinished {
                    guard start < buffer.count else { return nil }
                    defer {
                        buffer = []
                        start = 0
                        searchedUpTo = 0
                    }
                    return String(decoding: buffer[start...], as: UTF8.self)
                }
                guard buffer.count - start <= LineSequence.maximumLineLength else {
                    throw EndpointError(
                        .responseTooLarge,
                        "a line of the streamed body is longer than \(LineSequence.maximumLineLength) bytes"
                    )
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
    }
}
