import Foundation

/// A body read whole, up to a limit: the one rule every reader of a whole body follows (``ResponseBody``'s
/// ``ResponseBody/collect(upTo:)``, the channel ``URLSessionTransport`` streams into, and a transport's own
/// collection of a body it hands over complete, as when the options say ``ResponseBodyHandling/collect(upTo:)``).
///
/// A body announced past the limit fails before a byte is read; otherwise it fails as the chunk that crosses
/// the limit arrives, with ``EndpointError/Kind/responseTooLarge``. Package API: the AsyncHTTPClient adapter's
/// collecting delegate follows the same rule.
package struct BodyCollector: Sendable {
    /// The most bytes the body may have.
    package let limit: Int
    /// The bytes so far.
    package private(set) var data = Data()

    /// Starts collecting a body whose length is announced as `announced`, if at all.
    ///
    /// - Throws: ``EndpointError/Kind/responseTooLarge`` when `announced` is past `limit`.
    package init(limit: Int, announced: Int?) throws(EndpointError) {
        self.limit = limit
        if let announced {
            guard announced <= limit else { throw Self.tooLarge(limit: limit, announced: announced) }
            data.reserveCapacity(announced)
        }
    }

    /// Adds `chunk`, or fails when it would take the body past the limit.
    ///
    /// - Throws: ``EndpointError/Kind/responseTooLarge`` past the limit; the bytes so far are kept.
    package mutating func append(_ chunk: Data) throws(EndpointError) {
        guard chunk.count <= limit - data.count else { throw Self.tooLarge(limit: limit, announced: nil) }
        data.append(chunk)
    }

    /// Hands the bytes over, leaving the collector empty.
    /// Adds bytes read in place (a transport's own buffer), without a `Data` of their own.
    package mutating func append(_ bytes: UnsafeRawBufferPointer) throws(EndpointError) {
        guard bytes.count <= limit - data.count else { throw Self.tooLarge(limit: limit, announced: nil) }
        guard let base = bytes.baseAddress else { return }
        data.append(base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
    }

    package mutating func take() -> Data {
        defer { data = Data() }
        return data
    }

    /// The error for a body past `limit` bytes, naming the announced length when there was one.
    static func tooLarge(limit: Int, announced: Int?) -> EndpointError {
        let announcement = announced.map { " (the server announced \($0) bytes)" } ?? ""
        return EndpointError(
            .responseTooLarge,
            "the response body is larger than the limit of \(limit) bytes\(announcement)"
        )
    }
}
