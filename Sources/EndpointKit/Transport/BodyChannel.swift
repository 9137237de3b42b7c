import Foundation

/// A response body handed from a transport's callbacks to one reader, chunk by chunk or collected whole.
///
/// It exists so that collecting a body costs one wake-up of the reader, when the body is complete, instead of
/// one per chunk as an `AsyncThrowingStream` would; and so that the size limit is enforced as bytes arrive,
/// on the transport's thread, even before the reader asks. The producer calls ``yield(_:)`` and
/// ``finish(throwing:)``; `stop` is called once when the reader leaves early, to stop the transfer.
final class BodyChannel: Sendable {
    /// Where the body stands: one phase at a time, so that no combination of flags can contradict another.
    private enum Phase {
        /// Chunks wait in `pending` for a reader.
        case buffering
        /// A reader waits for the next chunk.
        case waiting(CheckedContinuation<Data?, any Error>)
        /// A reader collects the whole body up to the collector's limit; the collector holds what arrived so far.
        case collecting(BodyCollector, CheckedContinuation<Data, any Error>)
        /// Chunks go to `sink` as they arrive, on the producer's thread; `drainer` waits for the end.
        case writing(sink: @Sendable (Data) throws -> Void, drainer: CheckedContinuation<Void, any Error>?)
        /// The producer is done: complete when `failure` is `nil`. Chunks may still wait in `pending`.
        case finished(failure: (any Error)?)
        /// The reader left, or a limit or a failed sink ended the body: nothing more is read or kept.
        case stopped
    }

    private struct State {
        var phase = Phase.buffering
        var pending: [Data] = []
        /// The bytes in `pending`.
        var pendingBytes = 0

        /// Every chunk waiting, taken out.
        mutating func takePending() -> [Data] {
            defer {
                pending.removeAll(keepingCapacity: true)
                pendingBytes = 0
            }
            return pending
        }
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
            case tooLarge(CheckedContinuation<Data, any Error>, EndpointError)
            case sinkFailed(CheckedContinuation<Void, any Error>?, any Error)
            case fellBehind
        }
        let action = state.withLock { state -> Action in
            switch state.phase {
            case .finished, .stopped:
                return .none
            case .writing(let sink, let drainer):
                // Written under the lock, so chunks reach the sink one at a time and in order.
                do {
                    try sink(data)
                    return .none
                } catch {
                    state.phase = .finished(failure: error)
                    return .sinkFailed(drainer, error)
                }
            case .waiting(let waiter):
                state.phase = .buffering
                return .resume(waiter)
            case .collecting(var collected, let collector):
                // Out of the enum while it grows, so that the bytes are not copied.
                state.phase = .buffering
                do throws(EndpointError) {
                    try collected.append(data)
                } catch {
                    state.phase = .stopped
                    return .tooLarge(collector, error)
                }
                state.phase = .collecting(collected, collector)
                return .none
            case .buffering:
                state.pending.append(data)
                state.pendingBytes += data.count
                guard let limit, state.pendingBytes > limit else { return .none }
                // The reader fell this far behind a transport that cannot slow the server down: fail rather than
                // hold an unbounded backlog.
                _ = state.takePending()
                state.phase = .finished(failure: Self.fellBehind(limit))
                return .fellBehind
            }
        }
        switch action {
        case .none: break
        case .resume(let waiter): waiter.resume(returning: data)
        case .tooLarge(let collector, let error):
            collector.resume(throwing: error)
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
        let previous = state.withLock { state -> Phase in
            let previous = state.phase
            switch previous {
            case .finished, .stopped: break
            case .buffering, .waiting, .collecting, .writing: state.phase = .finished(failure: error)
            }
            return previous
        }
        switch previous {
        case .finished, .stopped, .buffering:
            break
        case .waiting(let waiter):
            if let error { waiter.resume(throwing: error) } else { waiter.resume(returning: nil) }
        case .collecting(var collected, let collector):
            if let error { collector.resume(throwing: error) } else { collector.resume(returning: collected.take()) }
        case .writing(_, let drainer):
            if let error { drainer?.resume(throwing: error) } else { drainer?.resume() }
        }
    }

    // MARK: Reader

    /// Whether the body goes to a sink: its reader then sees no bytes, only the end.
    private var isWriting: Bool {
        state.withLock { state in
            if case .writing = state.phase { return true }
            return false
        }
    }

    /// The next chunk, or `nil` at the end of the body; when the body goes to a sink, `nil` once it has ended.
    func next() async throws -> Data? {
        if isWriting {
            try await drain(into: { _ in })
            return nil
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Data?, any Error>) in
                let ready = state.withLock { state -> Result<Data?, any Error>? in
                    if Task.isCancelled { return .failure(Self.cancelled()) }
                    if !state.pending.isEmpty, case .buffering = state.phase {
                        return .success(Self.joined(state.takePending()))
                    }
                    switch state.phase {
                    case .buffering:
                        state.phase = .waiting(waiter)
                        return nil
                    case .finished(let failure):
                        if !state.pending.isEmpty { return .success(Self.joined(state.takePending())) }
                        return failure.map { .failure($0) } ?? .success(nil)
                    case .stopped, .waiting, .collecting, .writing:
                        return .failure(Self.cancelled())
                    }
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
    private static func joined(_ chunks: [Data]) -> Data {
        guard chunks.count > 1 else { return chunks[0] }
        var data = Data(capacity: chunks.reduce(0) { $0 + $1.count })
        for chunk in chunks { data.append(chunk) }
        return data
    }

    /// The whole body, failing as soon as it passes `limit` bytes; when the body goes to a sink, no bytes, once it
    /// has ended.
    func collect(upTo limit: Int) async throws -> Data {
        if isWriting {
            try await drain(into: { _ in })
            return Data()
        }
        // A body that is already complete is taken without suspending.
        let complete = state.withLock { state -> Result<Data, any Error>? in
            guard case .finished(let failure) = state.phase else { return nil }
            if let failure { return .failure(failure) }
            return Result { () throws(EndpointError) -> Data in
                var collector = try BodyCollector(limit: limit, announced: nil)
                for chunk in state.takePending() { try collector.append(chunk) }
                return collector.take()
            }.mapError { $0 }
        }
        if let complete { return try complete.get() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (collector: CheckedContinuation<Data, any Error>) in
                let ready = state.withLock { state -> Result<Data, any Error>? in
                    if Task.isCancelled { return .failure(Self.cancelled()) }
                    switch state.phase {
                    case .buffering, .finished:
                        break
                    case .stopped, .waiting, .collecting, .writing:
                        return .failure(Self.cancelled())
                    }
                    var collected: BodyCollector
                    do throws(EndpointError) {
                        collected = try BodyCollector(limit: limit, announced: nil)
                        for chunk in state.takePending() { try collected.append(chunk) }
                    } catch {
                        state.phase = .stopped
                        return .failure(error)
                    }
                    if case .finished(let failure) = state.phase {
                        return failure.map { .failure($0) } ?? .success(collected.take())
                    }
                    state.phase = .collecting(collected, collector)
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
            let isFinished: Bool
            switch state.phase {
            case .buffering: isFinished = false
            // The bytes that arrived before a failure are written too: a download keeps them to resume.
            case .finished: isFinished = true
            case .stopped, .waiting, .collecting, .writing: return false
            }
            do {
                for chunk in state.takePending() { try write(chunk) }
                if !isFinished { state.phase = .writing(sink: write, drainer: nil) }
                return false
            } catch {
                if !isFinished { state.phase = .finished(failure: error) }
                return !isFinished
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
                    switch state.phase {
                    case .finished(let failure):
                        return failure.map { .failure($0) } ?? .success(())
                    case .writing(let sink, nil):
                        if Task.isCancelled { return .failure(Self.cancelled()) }
                        state.phase = .writing(sink: sink, drainer: done)
                        return nil
                    case .stopped, .buffering, .waiting, .collecting, .writing:
                        return .failure(Self.cancelled())
                    }
                }
                if let ready { done.resume(with: ready) }
            }
        } onCancel: {
            leave()
        }
    }

    /// The reader left before the end: wake whoever waits with `cancelled`, and stop the transfer.
    func leave() {
        let (previous, shouldStop) = state.withLock { state -> (Phase, Bool) in
            let previous = state.phase
            if case .stopped = previous { return (previous, false) }
            state.phase = .stopped
            _ = state.takePending()
            if case .finished = previous { return (previous, false) }
            return (previous, true)
        }
        switch previous {
        case .waiting(let waiter): waiter.resume(throwing: Self.cancelled())
        case .collecting(_, let collector): collector.resume(throwing: Self.cancelled())
        case .writing(_, let drainer): drainer?.resume(throwing: Self.cancelled())
        case .buffering, .finished, .stopped: break
        }
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
