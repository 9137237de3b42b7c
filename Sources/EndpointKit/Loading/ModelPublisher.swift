/// One observer of one model in a ``ModelLoader``'s store: made when a loop starts iterating, gone (and
/// unsubscribed) when the iterator is, so that there is nothing to cancel by hand.
final class ModelSubscription<Model: Identifiable & Sendable>: Sendable where Model.ID: Sendable {
    let store: ModelStore<Model>
    let key: LoadKey<Model.ID>
    let token: UInt64
    /// The loader's background work: an observer keeps it running (its first load, an invalidation's refetch)
    /// after the loader itself is gone.
    let background: TaskOwner

    init(store: ModelStore<Model>, key: LoadKey<Model.ID>, id: Model.ID, background: TaskOwner) {
        self.store = store
        self.key = key
        self.background = background
        token = store.subscribe(key, id: id)
    }

    deinit { store.unsubscribe(key, observer: token) }
}

/// A live view of one model: its value now, if the loader has one, then every new value, until the loop stops
/// (which unsubscribes; there is nothing to cancel). What ``ModelLoader/publisher(forID:)`` returns.
///
///     for try await item in loader.publisher(forID: 42) { show(item) }   // loads, edits, invalidations, writes
///
/// Starting to iterate loads the model when the loader has no fresh value (observers share one request with
/// every other caller). A value that did not change (a revalidation answered 304) is not sent again. It throws
/// only when there is no value to show and a load failed; once there is a value, a failed refresh keeps it, and
/// ``ModelLoader/states(forID:)`` shows the error beside it. Cancelling the task ends the loop.
public struct ModelPublisher<Model: Identifiable & Sendable>: AsyncSequence, Sendable where Model.ID: Sendable {
    /// Values fail with ``EndpointError`` only.
    public typealias Failure = EndpointError

    let subscribe: @Sendable () -> ModelSubscription<Model>

    /// Subscribes.
    public func makeAsyncIterator() -> Iterator { Iterator(subscription: subscribe()) }

    /// Yields each new value.
    public struct Iterator: AsyncIteratorProtocol {
        let subscription: ModelSubscription<Model>
        var seen: UInt64 = 0
        var lastRevision: UInt64?

        /// The next value, or `nil` once the task is cancelled.
        public mutating func next() async throws(EndpointError) -> Model? {
            // The store directly, not through a method of the subscription: one async frame less per waiting observer.
            while let (state, change) = await subscription.store.next(
                subscription.key,
                observer: subscription.token,
                after: seen
            ) {
                seen = change
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
public struct ModelStates<Model: Identifiable & Sendable>: AsyncSequence, Sendable where Model.ID: Sendable {
    /// States never fail: an error is part of a state.
    public typealias Failure = Never

    let subscribe: @Sendable () -> ModelSubscription<Model>

    /// Subscribes.
    public func makeAsyncIterator() -> Iterator { Iterator(subscription: subscribe()) }

    /// Yields each state as it changes; a state that changed several times since the last read is read once, as
    /// it is now.
    public struct Iterator: AsyncIteratorProtocol {
        let subscription: ModelSubscription<Model>
        var seen: UInt64 = 0

        /// The next state, or `nil` once the task is cancelled.
        public mutating func next() async -> ModelState<Model>? {
            guard
                let (state, change) = await subscription.store.next(
                    subscription.key,
                    observer: subscription.token,
                    after: seen
                )
            else { return nil }
            seen = change
            return state
        }
    }
}
