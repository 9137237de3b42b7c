#if AsyncHTTPClient
import AsyncHTTPClient
import EndpointKit
import Foundation
import NIOCore
import NIOFoundationCompat

/// A response body read from AsyncHTTPClient chunk by chunk, as the reader asks: what keeps the transport's
/// back-pressure. Each wait for a chunk is bounded by the request's idle timeout, and failures are reported as
/// ``EndpointError``s.
struct ResponseChunks: AsyncSequence, Sendable {
    typealias Element = Data

    let body: HTTPClientResponse.Body
    let idleTimeout: Duration?
    /// The transport, kept alive while its body is read: released, it shuts its client down, which would cut
    /// the body of a stream that outlives the client it was asked through.
    let transport: AsyncHTTPClientTransport
    /// The call's place among those sent to its origin: given back when the body ends, fails, or is dropped.
    let slot: Admission.Slot
    /// Whether the response came over HTTP/2.
    let http2: Bool

    func makeAsyncIterator() -> Iterator {
        Iterator(
            body: IteratorBox(body.makeAsyncIterator()),
            idleTimeout: idleTimeout,
            transport: transport,
            slot: slot,
            http2: http2
        )
    }

    struct Iterator: AsyncIteratorProtocol {
        let body: IteratorBox
        let idleTimeout: Duration?
        let transport: AsyncHTTPClientTransport
        let slot: Admission.Slot
        let http2: Bool

        func next() async throws -> Data? {
            do {
                let buffer: ByteBuffer?
                if let idleTimeout {
                    buffer = try await body.next(within: idleTimeout)
                } else {
                    buffer = try await body.next()
                }
                if buffer == nil { slot.end(http2: http2) }
                return buffer.map { Data(buffer: $0, byteTransferStrategy: .noCopy) }
            } catch {
                slot.end(http2: http2)
                throw AsyncHTTPClientTransport.endpointError(from: error, afterHead: true, idleTimeout: idleTimeout)
            }
        }
    }

    /// AsyncHTTPClient's body iterator, which a timed wait hands to a child task.
    final class IteratorBox: @unchecked Sendable {
        // Safe because the body is read by one reader, one `next()` at a time, and a timed wait awaits its child
        // task before returning: `iterator` is never touched by two tasks at once.
        private var iterator: HTTPClientResponse.Body.AsyncIterator

        init(_ iterator: HTTPClientResponse.Body.AsyncIterator) { self.iterator = iterator }

        func next() async throws -> ByteBuffer? { try await iterator.next() }

        /// The next chunk, or ``IdleTimeout`` when none arrives within `timeout`; the read is then cancelled,
        /// which stops the transfer.
        func next(within timeout: Duration) async throws -> ByteBuffer? {
            try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
                group.addTask { try await self.next() }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw IdleTimeout()
                }
                defer { group.cancelAll() }
                // The first child to finish decides: a chunk (or the end), or the timer.
                guard let first = try await group.next() else { return nil }
                return first
            }
        }
    }

    /// No byte arrived within the idle timeout.
    struct IdleTimeout: Error {}
}
#endif
