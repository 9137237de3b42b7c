/// Gathers the IDs asked for within a ``ModelBatch``'s window and sends them together, in requests of at most
/// its maximum size, sent at once; each caller gets its own model or its own error.
final class ModelBatcher<Model: Identifiable & Sendable>: Sendable where Model.ID: Sendable {
    private typealias Waiter = CheckedContinuation<Model, any Error>

    private struct Pending {
        var id: Model.ID
        var token: UInt64
        var waiter: Waiter
    }

    private struct State {
        var pending: [Pending] = []
        var isScheduled = false
        var nextToken: UInt64 = 0
    }

    private let send: @Sendable ([Model.ID]) async throws(EndpointError) -> [Model]
    private let maximumSize: Int
    private let window: Duration?
    private let clock: any Clock<Duration>
    private let state = Locked(State())

    init(
        maximumSize: Int,
        window: Duration?,
        clock: any Clock<Duration>,
        send: @escaping @Sendable ([Model.ID]) async throws(EndpointError) -> [Model]
    ) {
        self.maximumSize = maximumSize
        self.window = window
        self.clock = clock
        self.send = send
    }

    /// How many callers wait for the next batch: a test's signal that they have all joined.
    var pendingCount: Int { state.withLock { $0.pending.count } }

    /// The model with `id`, from the next batch.
    func load(_ id: Model.ID) async throws(EndpointError) -> Model {
        let token = state.withLock { state -> UInt64 in
            state.nextToken += 1
            return state.nextToken
        }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (waiter: Waiter) in
                    enqueue(Pending(id: id, token: token, waiter: waiter))
                }
            } onCancel: {
                let removed = state.withLock { state -> Waiter? in
                    guard let index = state.pending.firstIndex(where: { $0.token == token }) else { return nil }
                    return state.pending.remove(at: index).waiter
                }
                removed?.resume(throwing: EndpointError(.cancelled, "the task was cancelled before its batch was sent"))
            }
        } catch {
            throw EndpointError.wrapping(error)
        }
    }

    private func enqueue(_ pending: Pending) {
        // Decided under the lock: a caller cancelled before it joined is never queued.
        let outcome = state.withLock { state -> (cancelled: Bool, schedule: Bool) in
            if Task.isCancelled { return (true, false) }
            state.pending.append(pending)
            defer { state.isScheduled = true }
            return (false, !state.isScheduled)
        }
        if outcome.cancelled {
            pending.waiter.resume(
                throwing: EndpointError(.cancelled, "the task was cancelled before its batch was sent")
            )
        }
        guard outcome.schedule else { return }
        let window = self.window
        let clock = self.clock
        Task {
            if let window { try? await clock.sleep(for: window) } else { await Task.yield() }
            await self.flush()
        }
    }

    private func flush() async {
        let taken = state.withLock { state -> [Pending] in
            state.isScheduled = false
            defer { state.pending = [] }
            return state.pending
        }
        // One request per distinct ID (by the scalars it prints, as keys are), in order, in chunks.
        var ids: [Model.ID] = []
        var seen: Set<LoadKey<Model.ID>> = []
        for pending in taken where seen.insert(LoadKey(exactly: pending.id)).inserted { ids.append(pending.id) }
        let chunks = stride(from: 0, to: ids.count, by: maximumSize).map {
            Array(ids[$0..<min($0 + maximumSize, ids.count)])
        }
        let send = self.send
        let results = await withTaskGroup(of: (Int, Result<[Model], EndpointError>).self) { group in
            for (index, chunk) in chunks.enumerated() {
                group.addTask {
                    do throws(EndpointError) {
                        return (index, .success(try await send(chunk)))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            var results: [Int: Result<[Model], EndpointError>] = [:]
            for await (index, result) in group { results[index] = result }
            return results
        }
        var found: [LoadKey<Model.ID>: Model] = [:]
        var failures: [LoadKey<Model.ID>: EndpointError] = [:]
        for (index, chunk) in chunks.enumerated() {
            switch results[index] {
            case .success(let models):
                for model in models { found[LoadKey(exactly: model.id)] = model }
            case .failure(let error):
                for id in chunk { failures[LoadKey(exactly: id)] = error }
            case nil:
                break
            }
        }
        for pending in taken {
            let key = LoadKey(exactly: pending.id)
            if let model = found[key] {
                pending.waiter.resume(returning: model)
            } else {
                pending.waiter.resume(
                    throwing: failures[key]
                        ?? EndpointError(
                            .modelNotFound,
                            "the batch endpoint's answer has no model with ID \(pending.id)"
                        )
                )
            }
        }
    }
}
