import Foundation

/// The values of a JSON Lines body (one JSON value per line), each decoded as it arrives.
public struct JSONLineSequence<Element: Decodable>: AsyncSequence, Sendable {
    /// Values fail with ``EndpointError`` only.
    public typealias Failure = EndpointError

    let lines: LineSequence
    let decoder: JSONDecoder

    /// Starts reading the body.
    public func makeAsyncIterator() -> Iterator { Iterator(lines: lines.makeAsyncIterator(), decoder: decoder) }

    /// Decodes lines as they arrive.
    public struct Iterator: AsyncIteratorProtocol {
        var lines: LineSequence.Iterator
        let decoder: JSONDecoder
        var number = 0

        /// The next value, or `nil` at the end of the body.
        public mutating func next() async throws(EndpointError) -> Element? {
            // Decoded from the line's bytes: no String of each line is made only to be turned back into bytes.
            while let line = try await lines.nextBytes() {
                number += 1
                guard !line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) else { continue }
                do {
                    return try decoder.decode(Element.self, from: line)
                } catch let error as DecodingError {
                    throw lines.chunks.named(
                        EndpointError(
                            .decodingFailed,
                            "line \(number) of the stream is not a \(Element.self): "
                                + error.summary(wireKeys: DecodingError.namesWireKeys(decoder)),
                            body: line,
                            codingPath: error.codingPathDescription(wireKeys: DecodingError.namesWireKeys(decoder)),
                            underlyingError: error
                        )
                    )
                } catch {
                    throw lines.chunks.named(
                        EndpointError(.decodingFailed, "line \(number) could not be decoded: \(error)")
                    )
                }
            }
            return nil
        }
    }
}
