import Foundation
import Testing

@testable import EndpointKit

/// A sequence of numbered chunks that records how many were asked for, and whether its iterator was dropped.
private final class Source: AsyncSequence, @unchecked Sendable {
    // Safe because every access to `pulledCount` and `droppedFlag` holds `lock`.
    typealias Element = Data

    private let lock = NSLock()
    private var pulledCount = 0
    private var droppedFlag = false
    let chunks: Int

    init(chunks: Int) { self.chunks = chunks }

    var pulled: Int { lock.withLock { pulledCount } }
    var dropped: Bool { lock.withLock { droppedFlag } }

    func makeAsyncIterator() -> Iterator { Iterator(source: self) }

    final class Iterator: AsyncIteratorProtocol {
        let source: Source
        init(source: Source) { self.source = source }
        deinit { source.lock.withLock { source.droppedFlag = true } }

        func next() async throws -> Data? {
            source.lock.withLock {
                guard source.pulledCount < source.chunks else { return nil }
                source.pulledCount += 1
                return Data([UInt8(source.pulledCount)])
            }
        }
    }
}

@Suite(.timeLimit(.minutes(1))) struct PulledResponseBodyTests {
    @Test("A pulled body asks its sequence for a chunk only when the reader asks: nothing is read ahead")
    func onDemand() async throws {
        let source = Source(chunks: 5)
        let body = ResponseBody(length: nil, pulling: source)

        var iterator = body.makeAsyncIterator()
        let pulledBeforeReading = source.pulled
        let first = try await iterator.next()
        let pulledAfterOne = source.pulled
        let second = try await iterator.next()

        #expect(pulledBeforeReading == 0)
        #expect(first == Data([1]))
        #expect(pulledAfterOne == 1)
        #expect(second == Data([2]))
        #expect(source.pulled == 2)
    }

    @Test("Collecting a pulled body reads it whole, and stops at the size limit with responseTooLarge")
    func collecting() async throws {
        let whole = try await ResponseBody(length: nil, pulling: Source(chunks: 5)).collect(upTo: 10)
        let limited = Source(chunks: 100)

        let error = await #expect(throws: EndpointError.self) {
            _ = try await ResponseBody(length: nil, pulling: limited).collect(upTo: 3)
        }

        #expect(whole == Data([1, 2, 3, 4, 5]))
        #expect(error?.kind == .responseTooLarge)
        #expect(limited.pulled == 4, "reading stopped at the chunk that crossed the limit")
    }

    @Test("Leaving the loop drops the sequence's iterator, which is how a transport learns to stop")
    func leaving() async throws {
        let source = Source(chunks: 100)
        let body = ResponseBody(length: nil, pulling: source)

        for try await _ in body { break }

        #expect(source.pulled == 1)
        #expect(source.dropped)
    }

    @Test("A pulled body can be read once; a second reader fails instead of seeing an empty body")
    func readOnce() async throws {
        let body = ResponseBody(length: nil, pulling: Source(chunks: 2))

        _ = try await body.collect(upTo: 10)
        let error = await #expect(throws: EndpointError.self) { _ = try await body.collect(upTo: 10) }

        #expect(error?.kind == .invalidRequest)
    }
}
