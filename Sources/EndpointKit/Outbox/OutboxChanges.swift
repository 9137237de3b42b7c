/// The changes of an ``Outbox``, as they happen, until the loop stops: see ``OutboxChange``.
///
/// Each sequence buffers what its reader has not read yet, so a slow reader misses nothing.
public struct OutboxChanges: AsyncSequence, Sendable {
    /// The element: one change.
    public typealias Element = OutboxChange

    let stream: AsyncStream<OutboxChange>

    /// The changes `stream` yields.
    package init(_ stream: AsyncStream<OutboxChange>) { self.stream = stream }

    /// Makes the iterator.
    public func makeAsyncIterator() -> Iterator { Iterator(base: stream.makeAsyncIterator()) }

    /// Reads the changes one by one.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<OutboxChange>.Iterator

        /// The next change; `nil` once the reader's task is cancelled.
        public mutating func next() async -> OutboxChange? { await base.next() }

        /// The next change, under the caller's isolation.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> OutboxChange? {
            await base.next(isolation: actor)
        }
    }
}
