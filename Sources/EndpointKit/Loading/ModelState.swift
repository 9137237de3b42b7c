import Foundation

/// What a ``ModelLoader`` knows of one model at a moment: its value, whether a load is under way, and how the last
/// one failed. Not exclusive: "showing the stored value while loading" is a value with `isLoading`, and "the last
/// refresh failed, here is the value we have" a value with an `error`.
///
///     for await state in loader.states(forID: 42) {
///         if let item = state.value { show(item) }
///         spinner.isHidden = !state.isLoading
///         if let error = state.error { banner(error) }
///     }
public struct ModelState<Model: Sendable>: Sendable {
    /// The latest value: loaded, put, or written optimistically; `nil` before the first.
    public var value: Model?
    /// Whether a load of the model is under way.
    public var isLoading: Bool
    /// Whether an optimistic write (``ModelLoader/update(_:sending:)``) of the model waits for the server's answer:
    /// the value on show is not confirmed yet, and may be rolled back.
    public var isWritePending = false
    /// Until when an ``Outbox`` holds the pending write back: its group is paused (no network, a server's
    /// `Retry-After`, a failure that may pass) and tries again then. `nil` while the write is on its way or queued
    /// behind earlier ones, and when no write is pending.
    ///
    ///     for await state in loader.states(forID: 42) {
    ///         if let until = state.writeWaitsUntil { print("waiting for the network; next try at \(until)") }
    ///     }
    public var writeWaitsUntil: Date?
    /// How the last load failed, until one succeeds; a failed load never replaces ``value``.
    public var error: EndpointError? {
        get { failure?.error }
        set { failure = newValue.map(Failure.init) }
    }
    /// The error, boxed: an `EndpointError` is about 300 bytes, and a state is copied into every observer's wait.
    private var failure: Failure?
    /// Counts changes of ``value``: what tells a value publisher a new value from the same one again.
    var revision: UInt64 = 0

    /// Creates a state.
    public init(value: Model? = nil, isLoading: Bool = false, error: EndpointError? = nil) {
        self.value = value
        self.isLoading = isLoading
        failure = error.map(Failure.init)
    }

    private final class Failure: Sendable {
        let error: EndpointError
        init(_ error: EndpointError) { self.error = error }
    }
}
