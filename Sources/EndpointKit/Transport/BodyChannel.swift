import Foundation

/// A response body handed from a transport's callbacks to one reader, chunk by chunk or collected whole.
///
/// It exists so that collecting a body costs one wake-up of the reader, when the body is complete, instead of
/// one per chunk as an `AsyncThrowingStream` would; and so that the size limit is enforced as bytes arrive,
/// on the transport's thread, even before the reader asks. The producer calls ``yield(_:)`` and
/// ``finish(throwing:)``; `stop` is called once when the reader leaves early, to stop the transfer.
final class BodyChannel: Sendable {
    private struct State {
        var pending: [Data] = []
        /// The bytes in `pending`.
        var pendingBytes = 0
        var collected = Data()
        var isFinished = false
        var failure: (any Error)?
        var isStopped = false
        var waiter: CheckedContinuation<Data?, any Error>?
        var collector: (limit: Int, continuation: CheckedContinuation<Data, any Error>)?
        /// Where chunks go as they arrive, on the producer's thread, when the reader drains into a sink.
        var sink: (@Sendable (Data) throws -> Void)?
        /// The reader waiting in ``drain(into:)`` for the body to end.
        var drainer: CheckedContinuation<Void, any Error>?
    }

    private let state = Locked(State())
    private let stop: @Sendable () -> Void
    /// The most bytes held for a reader that fell behind, or `nil` for no limit.
    private let limit: Int?

    init(limit: Int? = nil, stop: @escaping @Sendable () -> Void) {
        self.limit = limit
        self.stop = stop
    }

    // MARK: Producer

    /// Hands a chunk to the reader.
    func yield(_ data: Data) {
        enum Action {
            case none
            case resume(CheckedContinuation<Data?, any Error>)
            case tooLarge(CheckedContinuation<Data, any Error>, Int)
            case sinkFailed(CheckedContinuation<Void, any Error>?, any Error)
            case fellBehind
        }
        let action = state.withLock { state -> Action in
            guard !state.isFinished, !state.isStopped else { return .none }
            if let sink = state.sink {
                // Written under the lock, so chunks reach the sink one at a time and in order.
                do {
                    try sink(data)
                    return .none
                } catch {
                    state.sink = nil
                    state.isStopped = true
                    state.isFinished = true
                    state.failure = error
                    defer { state.drainer = nil }
                    return .sinkFailed(state.drainer, error)
                }
            }
            if let waiter = state.waiter {
                state.waiter = nil
                return .resume(waiter)
            }
            if let collector = state.collector {
                guard data.count <= collector.limit - state.collected.count else {
                    state.collector = nil
                    state.isStopped = true
                    return .tooLarge(collector.continuation, collector.limit)
                }
                state.collected.append(data)
                return .none
            }
            state.pending.append(data)
            state.pendingBytes += data.count
            if let limit, state.pendingBytes > limit {
                // The reader fell this far behind a transport that cannot slow the server down: fail rather than
                // hold an unbounded backlog.
                state.pending = []
                state.pendingBytes = 0
                state.isFinished = true
                state.failure = Self.fellBehind(limit)
                return .fellBehind
            }
            return .none
        }
        switch action {
        case .none: break
        case .resume(let waiter): waiter.resume(returning: data)
        case .tooLarge(let collector, let limit):
            collector.resume(throwing: ResponseBody.tooLarge(limit: limit, announced: nil))
            stop()
        case .sinkFailed(let drainer, let error):
            drainer?.resume(throwing: error)
            stop()
        case .fellBehind:
            stop()
        }
    }

    /// Ends the body, complete when `error` is `nil`.
    func finish(throwing error: (any Error)?) {
        let (waiter, collector, collected, sink) = state.withLock {
            state -> (
                CheckedContinuation<Data?, any Error>?, CheckedContinuation<Data, any Error>?, Data,
                CheckedContinuation<Void, any Error>?
            ) in
            guard !state.isFinished else { return (nil, nil, Data(), nil) }
            state.isFinished = true
            state.failure = error
            defer {
                state.waiter = nil
                state.collector = nil
                state.collected = Data()
                state.sink = nil
                state.drainer = nil
            }
            return (state.waiter, state.collector?.continuation, state.collected, state.drainer)
        }
        if let error {
            waiter?.resume(throwing: error)
            collector?.resume(throwing: error)
            sink?.resume(throwing: error)
        } else {
            waiter?.resume(returning: nil)
            collector?.resume(returning: collected)
            sink?.resume()
        }
    }

    // MARK: Reader

    /// The next chunk, or `nil` at the end of the body.
    func next() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Data?, any Error>) in
                let ready = state.withLock { state -> Result<Data?, any Error>? in
                    if Task.isCancelled || state.isStopped { return .failure(Self.cancelled()) }
                    if !state.pending.isEmpty {
                        state.pendingBytes = 0
                        return .success(Self.takeAll(&state.pending))
                    }
                    if state.isFinished { return state.failure.map { .failure($0) } ?? .success(nil) }
                    state.waiter = waiter
                    return nil
                }
                if let ready { waiter.resume(with: ready) }
            }
        } onCancel: {
            leave()
        }
    }

    /// Every chunk waiting, as one: a reader that fell behind catches up in one wake-up, and taking them one by
    /// one from the front of an array would cost time in proportion to how far behind it is, so it would fall
    /// further behind.
    private static func takeAll(_ pending: inout [Data]) -> Data {
        defer { pending.removeAll(keepingCapacity: true) }
        guard pending.count > 1 else { return pending[0] }
        var data = Data(capacity: pending.reduce(0) { $0 + $1.count })
        for chunk in pending { data.append(chunk) }
        return data
    }

    /// The whole body, failing as soon as it passes `limit` bytes.
    func collect(upTo limit: Int) async throws -> Data {
        // A body that is already complete is taken without suspending.
        let complete = state.withLock { state -> Result<Data, any Error>? in
            guard state.isFinished, !state.isStopped else { return nil }
            if let failure = state.failure { return .failure(failure) }
            let size = state.pending.reduce(0) { $0 + $1.count }
            guard size <= limit else { return .failure(ResponseBody.tooLarge(limit: limit, announced: nil)) }
            var data = Data(capacity: size)
            for chunk in state.pending { data.append(chunk) }
            state.pending = []
            state.pendingBytes = 0
            return .success(data)
        }
        if let complete { return try complete.get() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (collector: CheckedContinuation<Data, any Error>) in
                let ready = state.withLock { state -> Result<Data, any Error>? in
                    if Task.isCancelled || state.isStopped { return .failure(Self.cancelled()) }
                    let size = state.pending.reduce(0) { $0 + $1.count }
                    if size > limit {
                        state.isStopped = true
                        return .failure(ResponseBody.tooLarge(limit: limit, announced: nil))
                    }
                    var data = Data(capacity: size)
                    for chunk in state.pending { data.append(chunk) }
                    state.pending = []
                    state.pendingBytes = 0
                    if state.isFinished { return state.failure.map { .failure($0) } ?? .success(data) }
                    state.collected = data
                    state.collector = (limit, collector)
                    return nil
                }
                guard let ready else { return }
                if case .failure(let error as EndpointError) = ready, error.kind == .responseTooLarge { stop() }
                collector.resume(with: ready)
            }
        } onCancel: {
            leave()
        }
    }

    /// Sends every chunk from now on to `write`, on the producer's thread, the ones already waiting first;
    /// nothing is buffered for a reader any more. A transport calls it as the head arrives, when the request
    /// says where the body goes (a ``BodySink``), so that no byte waits for the reader to wake.
    func install(_ write: @escaping @Sendable (Data) throws -> Void) {
        let failed = state.withLock { state -> Bool in
            guard !state.isStopped, state.sink == nil else { return false }
            do {
                for chunk in state.pending { try write(chunk) }
                state.pending = []
                state.pendingBytes = 0
                state.sink = write
                return false
            } catch {
                state.isStopped = true
                state.isFinished = true
                state.failure = error
                return true
            }
        }
        if failed { stop() }
    }

    /// Hands every chunk to `write` as it arrives, on the producer's thread, until the body ends; the chunks
    /// that arrived before are written first. Nothing is buffered for the reader, so a transport without
    /// back-pressure holds no more than its own callbacks do, however slow the reader would have been. When a
    /// sink was installed already, `write` is not used: this only waits for the end.
    func drain(into write: @escaping @Sendable (Data) throws -> Void) async throws {
        install(write)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
                let ready = state.withLock { state -> Result<Void, any Error>? in
                    if state.isFinished { return state.failure.map { .failure($0) } ?? .success(()) }
                    if Task.isCancelled || state.isStopped { return .failure(Self.cancelled()) }
                    state.drainer = done
                    return nil
                }
                if let ready { done.resume(with: ready) }
            }
        } onCancel: {
            leave()
        }
    }

    /// The reader left before the end: wake whoever waits with `cancelled`, and stop the transfer.
    func leave() {
        let (waiter, collector, sink, shouldStop) = state.withLock {
            state -> (
                CheckedContinuation<Data?, any Error>?, CheckedContinuation<Data, any Error>?,
                CheckedContinuation<Void, any Error>?, Bool
            ) in
            guard !state.isStopped else { return (nil, nil, nil, false) }
            state.isStopped = true
            defer {
                state.waiter = nil
                state.collector = nil
                state.sink = nil
                state.drainer = nil
                state.pending = []
                state.pendingBytes = 0
                state.collected = Data()
            }
            return (state.waiter, state.collector?.continuation, state.drainer, !state.isFinished)
        }
        waiter?.resume(throwing: Self.cancelled())
        collector?.resume(throwing: Self.cancelled())
        sink?.resume(throwing: Self.cancelled())
        if shouldStop { stop() }
    }

    private static func fellBehind(_ limit: Int) -> EndpointError {
        EndpointError(
            .responseTooLarge,
            "the reader fell more than \(limit) bytes behind the server, which the transport cannot slow down "
                + "(raise maximumResponseSize to hold more)"
        )
    }

    private static func cancelled() -> EndpointError {
        EndpointError(.cancelled, "the task was cancelled while the body was read")
    }
}

/// The reader's handle on a ``BodyChannel``: when the last copy of a body is dropped unread, the transfer stops.
final class BodyChannelReader: Sendable {
    let channel: BodyChannel
    private let claimed = Locked(false)

    init(_ channel: BodyChannel) { self.channel = channel }

    /// Whether this is the first reader; a streamed body can be read once.
    func claim() -> Bool {
        claimed.withLock { claimed in
            defer { claimed = true }
            return !claimed
        }
    }

    deinit { channel.leave() }
}
