import Foundation

/// Gathers the IDs asked for within a ``ModelBatch``'s window and sends them together, in requests of at most
/// its maximum size, sent at once; each caller gets its own model or its own error.
///
/// The window's timer is the batcher's own task: it holds the batcher weakly and is cancelled when the batcher
/// goes (which cannot happen while a caller waits, since a waiting caller holds it).
final class ModelBatcher<Model: Identifiable & Sendable>: Sendable where Model.ID: Sendable {
    /// Sends one request for `ids` (past the HTTP cache when `revalidate`): the models found, and the request as
    /// errors name it.
    typealias Send =
        @Sendable (_ ids: [Model.ID], _ revalidate: Bool) async throws(EndpointError) -> (
            models: [Model], request: RequestSummary?
        )

    private struct Pending {
        var id: Model.ID
        var token: UInt64
        var revalidate: Bool
        var answer: @Sendable (Result<Model, EndpointError>) -> Void
    }

    private struct State {
        var pending: [Pending] = []
        var flusher: Task<Void, Never>?
        var nextToken: UInt64 = 0

        mutating func tokens(_ count: Int) -> Range<UInt64> {
            defer { nextToken += UInt64(count) }
            return (nextToken + 1)..<(nextToken + 1 + UInt64(count))
        }
    }

    private let send: Send
    private let maximumSize: Int
    private let window: Duration?
    private let clock: any Clock<Duration>
    private let state = Locked(State())

    init(maximumSize: Int, window: Duration?, clock: any Clock<Duration>, send: @escaping Send) {
        self.maximumSize = maximumSize
        self.window = window
        self.clock = clock
        self.send = send
    }

    deinit { state.withLock { $0.flusher?.cancel() } }

    /// How many callers wait for the next batch: a test's signal that they have all joined.
    var pendingCount: Int { state.withLock { $0.pending.count } }

    /// The model with `id`, from the next batch.
    func load(_ id: Model.ID, revalidate: Bool) async throws(EndpointError) -> Model {
        try await load([id], revalidate: revalidate)[0].get()
    }

    /// The models with `ids`, in order, each with its own outcome: all of them join the same batch (one request
    /// per maximum size), since they are queued at once.
    func load(_ ids: [Model.ID], revalidate: Bool) async -> [Result<Model, EndpointError>] {
        let tokens = state.withLock { $0.tokens(ids.count) }
        let collected = Locked(
            (results: [Result<Model, EndpointError>?](repeating: nil, count: ids.count), left: ids.count)
        )
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<[Result<Model, EndpointError>], Never>) in
                let pending = zip(ids, tokens).enumerated().map { index, element in
                    Pending(id: element.0, token: element.1, revalidate: revalidate) { result in
                        let done = collected.withLock { collected -> [Result<Model, EndpointError>]? in
                            guard collected.results[index] == nil else { return nil }
                            collected.results[index] = result
                            collected.left -= 1
                            return collected.left == 0 ? collected.results.compactMap { $0 } : nil
                        }
                        if let done { waiter.resume(returning: done) }
                    }
                }
                enqueue(pending)
            }
        } onCancel: {
            let removed = state.withLock { state -> [Pending] in
                let (mine, others) = state.pending.partitioned { tokens.contains($0.token) }
                state.pending = others
                return mine
            }
            for pending in removed { pending.answer(.failure(Self.cancelled)) }
        }
    }

    private static var cancelled: EndpointError {
        EndpointError(.cancelled, "the task was cancelled before its batch was sent")
    }

    private func enqueue(_ pending: [Pending]) {
        // Decided under the lock: a caller cancelled before it joined is never queued.
        let cancelled = state.withLock { state -> Bool in
            if Task.isCancelled { return true }
            state.pending.append(contentsOf: pending)
            if state.flusher == nil { state.flusher = startFlusher() }
            return false
        }
        if cancelled { for item in pending { item.answer(.failure(Self.cancelled)) } }
    }

    /// The window's timer, holding the batcher weakly.
    private func startFlusher() -> Task<Void, Never> {
        let window = self.window
        let clock = self.clock
        return Task { [weak self] in
            if let window {
                do { try await clock.sleep(for: window) } catch { return }
            } else {
                await Task.yield()
            }
            await self?.flush()
        }
    }

    private func flush() async {
        let taken = state.withLock { state -> [Pending] in
            state.flusher = nil
            defer { state.pending = [] }
            return state.pending
        }
        // One request per distinct ID (by the scalars it prints, as keys are), in order, in chunks.
        var ids: [Model.ID] = []
        var seen: Set<LoadKey<Model.ID>> = []
        var revalidating: Set<LoadKey<Model.ID>> = []
        for pending in taken {
            let key = LoadKey(exactly: pending.id)
            if seen.insert(key).inserted { ids.append(pending.id) }
            if pending.revalidate { revalidating.insert(key) }
        }
        // One order for one set of IDs, whoever asked first: the batch's URL (its cache key, its recording)
        // is the same in every process.
        ids.sort { String(describing: $0).compare(String(describing: $1), options: .numeric) == .orderedAscending }
        let chunks = stride(from: 0, to: ids.count, by: maximumSize).map {
            Array(ids[$0..<min($0 + maximumSize, ids.count)])
        }
        // A chunk goes past the HTTP cache when any of its IDs was asked for so.
        let revalidates = chunks.map { chunk in chunk.contains { revalidating.contains(LoadKey(exactly: $0)) } }
        let results = await sendAll(chunks, revalidates: revalidates)
        var found: [LoadKey<Model.ID>: Model] = [:]
        var failures: [LoadKey<Model.ID>: EndpointError] = [:]
        var requests: [LoadKey<Model.ID>: RequestSummary] = [:]
        for (index, chunk) in chunks.enumerated() {
            switch results[index] {
            case .success(let answer):
                for model in answer.models { found[LoadKey(exactly: model.id)] = model }
                if let request = answer.request { for id in chunk { requests[LoadKey(exactly: id)] = request } }
            case .failure(let error):
                for id in chunk { failures[LoadKey(exactly: id)] = error }
            case nil:
                break
            }
        }
        for pending in taken {
            let key = LoadKey(exactly: pending.id)
            if let model = found[key] {
                pending.answer(.success(model))
            } else {
                let missing = EndpointError(
                    .modelNotFound,
                    "the batch endpoint's answer has no model with ID \(pending.id)",
                    request: requests[key]
                )
                pending.answer(.failure(failures[key] ?? missing))
            }
        }
    }

    /// Sends every chunk at once; `revalidates[i]` says whether chunk `i` goes past the HTTP cache.
    private func sendAll(
        _ chunks: [[Model.ID]],
        revalidates: [Bool]
    ) async -> [Int: Result<(models: [Model], request: RequestSummary?), EndpointError>] {
        let send = self.send
        return await withTaskGroup(
            of: (Int, Result<(models: [Model], request: RequestSummary?), EndpointError>).self
        ) { group in
            for (index, chunk) in chunks.enumerated() {
                group.addTask {
                    do throws(EndpointError) {
                        return (index, .success(try await send(chunk, revalidates[index])))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            var results: [Int: Result<(models: [Model], request: RequestSummary?), EndpointError>] = [:]
            for await (index, result) in group { results[index] = result }
            return results
        }
    }
}

extension Array {
    /// The elements `belongs` selects, and the rest, each in order.
    fileprivate func partitioned(by belongs: (Element) -> Bool) -> (selected: [Element], rest: [Element]) {
        var selected: [Element] = []
        var rest: [Element] = []
        for element in self {
            if belongs(element) { selected.append(element) } else { rest.append(element) }
        }
        return (selected, rest)
    }
}
