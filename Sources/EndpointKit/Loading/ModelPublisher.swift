/// A live view of one model: its value now, if the loader has one, then every new value, until the loop stops
/// (which unsubscribes; there is nothing to cancel). What ``ModelLoader/publisher(forID:)`` returns.
///
///     for try await item in loader.publisher(forID: 42) { show(item) }   // loads, edits, invalidations, writes
///
/// Starting to iterate loads the model when the loader has no fresh value (observers share one request with
/// every other caller). A value that did not change (a revalidation answered 304) is not sent again. It throws
/// only when there is no value to show and a load failed; once there is a value, a failed refresh keeps it, and
/// ``ModelLoader/states(forID:)`` shows the error beside it.
public struct ModelPublisher<Model: Sendable>: AsyncSequence, Sendable {
    /// Values fail with ``EndpointError`` only.
    public typealias Failure = EndpointError

    let subscribe: @Sendable () -> AsyncStream<ModelState<Model>>

    /// Subscribes.
    public func makeAsyncIterator() -> Iterator { Iterator(states: subscribe().makeAsyncIterator()) }

    /// Yields each new value.
    public struct Iterator: AsyncIteratorProtocol {
        var states: AsyncStream<ModelState<Model>>.Iterator
        var lastRevision: UInt64?

        /// The next value, or `nil` once the task is cancelled.
        public mutating func next() async throws(EndpointError) -> Model? {
            while let state = await states.next() {
                if let value = state.value {
                    guard state.revision != lastRevision else { continue }
                    lastRevision = state.revision
                    return value
                }
                if !state.isLoading, let error = state.error { throw error }
            }
            return nil
        }
    }
}

/// Every state of one model as it changes: value, loading and error together. What
/// ``ModelLoader/states(forID:)`` returns; iterating it subscribes, stopping unsubscribes.
public struct ModelStates<Model: Sendable>: AsyncSequence, Sendable {
    /// States never fail: an error is part of a state.
    public typealias Failure = Never

    let subscribe: @Sendable () -> AsyncStream<ModelState<Model>>

    /// Subscribes.
    public func makeAsyncIterator() -> AsyncStream<ModelState<Model>>.Iterator { subscribe().makeAsyncIterator() }
}
