import Foundation

extension ModelLoader where Model: Codable {
    /// The name an outbox keeps this loader's writes under: the model's type.
    static var outboxName: String { String(reflecting: Model.self) }

    /// Shows the writes `outbox` holds for this loader's model type as pending values (those a last run left, after
    /// a restart), and from now on settles each as it ends: the server's answer replaces it, a refusal or an
    /// expiry rolls it back. ``update(_:sending:through:group:)`` attaches on its own; call this at start-up, so
    /// that the screen shows what the user did before the process ended. Open the outbox with
    /// `startsSending: false` and resume it once its loaders are attached: then no write is settled before it is
    /// shown.
    ///
    ///     let outbox = try Outbox<EndpointKinds.Public>(directory: folder, client: client, startsSending: false)
    ///     loader.attach(outbox)
    ///     outbox.resume()
    public func attach<Kind>(_ outbox: Outbox<Kind>) {
        let id = ObjectIdentifier(store)
        guard !outbox.queue.isAttached(Self.outboxName, id: id) else { return }
        let client = outbox.client
        let listener = OutboxStoreListener(store: store, key: source.key) { data in
            try? ResponseDecoding.decode(
                Model.self,
                from: TransportResponse(statusCode: 200, data: data),
                envelope: client.envelope,
                decoder: client.responseDecoder,
                request: { RequestSummary(method: .get, redactedURL: "") }
            )
        }
        outbox.queue.attach(listener, as: Self.outboxName, id: id)
    }

    /// Shows `model` to every observer as pending, after queueing `endpoint` in `outbox`: the write is on disk
    /// before anyone sees its value, and is sent when its group's earlier writes are settled, across failures and
    /// restarts (see ``Outbox``). Its answer, when it decodes as a `Model`, replaces the value; a refusal or an
    /// expiry rolls it back to the latest value the server confirmed, and ``Outbox/changes()`` says why.
    ///
    ///     try loader.update(renamed, sending: .rename(renamed), through: outbox)
    ///
    /// - Parameters:
    ///   - model: The value to show now.
    ///   - endpoint: The write that sends it.
    ///   - outbox: Where the write waits.
    ///   - group: The writes sent in order with this one; by default those of the same model (its type and ID).
    /// - Returns: The write, as the outbox shows it.
    /// - Throws: What ``Outbox/enqueue(_:group:)`` throws, and ``EndpointError/Kind/encodingFailed`` when the model
    ///   cannot be encoded; nothing is queued or shown then.
    @discardableResult
    public func update<Kind, Response>(
        _ model: Model,
        sending endpoint: Endpoint<Kind, Response>,
        through outbox: Outbox<Kind>,
        group: String? = nil
    ) throws(EndpointError) -> OutboxWrite {
        attach(outbox)
        let group = group ?? "\(Model.self)/\(model.id)"
        var record = try OutboxRecord(endpoint, group: group, client: outbox.client, key: nil)
        record.store = Self.outboxName
        do { record.value = try JSONEncoder().encode(model) } catch {
            throw EndpointError(.encodingFailed, "the model of an outbox write could not be encoded: \(error)")
        }
        let listener = outbox.queue.listener(named: Self.outboxName, id: ObjectIdentifier(store))
        return try outbox.queue.enqueue(record) { sequence in listener?.show(record, sequence: sequence) }
    }
}

/// Shows an outbox's writes in a loader's store: each as an optimistic write, settled when the write ends. It holds
/// the store weakly: an outbox outlives the screens whose loaders it shows writes in.
final class OutboxStoreListener<Model: Identifiable & Codable & Sendable>: OutboxListener, @unchecked Sendable
where Model.ID: Sendable {
    // Unchecked because of `store`: written once, in `init`, before the listener is shared; weak references are
    // read atomically. Everything else is immutable or locked.
    private struct Shown {
        var key: LoadKey<Model.ID>
        var write: UInt64
        var previous: Model?
    }

    private weak var store: ModelStore<Model>?
    private let key: @Sendable (Model.ID) -> LoadKey<Model.ID>
    private let decode: @Sendable (Data) -> Model?
    private let shown = Locked([UInt64: Shown]())

    init(
        store: ModelStore<Model>,
        key: @escaping @Sendable (Model.ID) -> LoadKey<Model.ID>,
        decode: @escaping @Sendable (Data) -> Model?
    ) {
        self.store = store
        self.key = key
        self.decode = decode
    }

    func show(_ record: OutboxRecord, sequence: UInt64) {
        guard let store, let data = record.value, let model = try? JSONDecoder().decode(Model.self, from: data) else {
            return
        }
        let key = key(model.id)
        let previous = store.value(for: key)
        let write = store.write(model, for: key, id: model.id, confirmed: false)
        shown.withLock { $0[sequence] = Shown(key: key, write: write, previous: previous) }
    }

    func settle(_ record: OutboxRecord, sequence: UInt64, _ settlement: OutboxQueue.Settlement) {
        guard let store, let shown = shown.withLock({ $0.removeValue(forKey: sequence) }) else { return }
        switch settlement {
        case .answered(let body):
            let outcome = decode(body).map(ModelEntry<Model>.WriteOutcome.answered) ?? .accepted
            store.settle(shown.key, write: shown.write, outcome: outcome, previous: shown.previous)
        case .failed:
            store.settle(shown.key, write: shown.write, outcome: .failed, previous: shown.previous)
        }
    }
}
