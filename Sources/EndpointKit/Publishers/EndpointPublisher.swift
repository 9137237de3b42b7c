/// An `AsyncSequence` that performs one request per iteration and emits its decoded value.
///
/// The contract:
/// - **Cold**: nothing is sent until a loop asks for the first element.
/// - **Re-iterable**: every `for try await` loop performs its own, fresh request.
/// - **One value, then done**: it emits the decoded value and finishes, or throws one ``EndpointError``.
/// - **Nothing buffered**: the value is produced when asked for.
/// - **Cancellation**: the request runs in the consuming task, so cancelling that task (or leaving the loop
///   early from another task's cancellation) cancels the transfer and throws ``EndpointError/Kind/cancelled``.
///
///     for try await results in client.publisher(for: .search(for: "tea"), using: token) {
///         print(results.items.count)
///     }
public struct EndpointPublisher<Output: Sendable>: AsyncSequence, Sendable {
    /// The element type: the endpoint's decoded response.
    public typealias Element = Output
    /// The only error the sequence throws.
    public typealias Failure = EndpointError

    private let operation: @Sendable () async throws(EndpointError) -> Output

    /// Creates a publisher that runs `operation` once per iteration.
    public init(_ operation: @escaping @Sendable () async throws(EndpointError) -> Output) {
        self.operation = operation
    }

    /// Starts an iteration; the request is sent by the first call to `next()`.
    public func makeAsyncIterator() -> Iterator {
        Iterator(operation: operation)
    }

    /// Iterates one request's result.
    public struct Iterator: AsyncIteratorProtocol {
        /// The element type: the endpoint's decoded response.
        public typealias Element = Output
        /// The only error the iterator throws.
        public typealias Failure = EndpointError

        private var operation: (@Sendable () async throws(EndpointError) -> Output)?

        init(operation: @escaping @Sendable () async throws(EndpointError) -> Output) {
            self.operation = operation
        }

        /// Performs the request on the first call and returns its value; returns `nil` afterwards.
        public mutating func next() async throws(EndpointError) -> Output? {
            guard let operation else { return nil }
            self.operation = nil
            return try await operation()
        }

        /// Performs the request on the first call and returns its value; returns `nil` afterwards.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(EndpointError) -> Output? {
            guard let operation else { return nil }
            self.operation = nil
            return try await operation()
        }
    }
}
