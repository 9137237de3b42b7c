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
    public func attach<Kind>(_ outbox: Outbox<Kind>) { _ = listener(in: outbox) }

    /// This loader's store's listener in `outbox`: made and registered the first time. The registration lives as
    /// long as the store, which is told of the outbox's writes until then.
    private func listener<Kind>(in outbox: Outbox<Kind>) -> any OutboxListener {
        store.outboxRegistrations.withLock { registrations in
            if let registration = registrations.first(where: { $0.isRegistered(in: outbox.queue) }) {
                return registration.listener
            }
            let client = outbox.client
            let listener = OutboxStoreListener(store: store, key: source.key, refetch: detachedRefetch) {
                data,
                record in
                try? ResponseDecoding.decode(
                    Model.self,
                    from: TransportResponse(statusCode: 200, data: data),
                    envelope: record.envelope(client: client),
                    decoder: client.responseDecoder,
                    request: { RequestSummary(method: .get, redactedURL: "") }
                )
            }
            let registration = outbox.queue.attach(listener, as: Self.outboxName)
            // An outbox that went leaves a registration that no longer counts.
            registrations.removeAll { !$0.isOpen }
            registrations.append(registration)
            return listener
        }
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
    ///   - group: The writes sent in order with this one: by default the endpoint's
    ///     ``RequestOptions/outboxGroup``, or else the outbox's one ordered stream (``OutboxWrite/defaultGroup``),
    ///     shared with ``Outbox/enqueue(_:group:)``; name groups to let unrelated writes go in parallel.
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
        let listener = listener(in: outbox)
        var record = try OutboxRecord(endpoint, group: group, client: outbox.client, policy: outbox.policy)
        record.store = Self.outboxName
        do { record.value = try JSONEncoder().encode(model) } catch {
            throw EndpointError(
                .encodingFailed,
                "the model of an outbox write could not be encoded: \(EndpointError.hidingEncodedValue(error))"
            )
        }
        return try outbox.queue.enqueue(record) { sequence in listener.show(record, sequence: sequence) }
    }
}

/// Shows an outbox's writes in a loader's store: each as an optimistic write, settled when the write ends. It holds
/// the store weakly: an outbox outlives the screens whose loaders it shows writes in.
final class OutboxStoreListener<Model: Identifiable & Codable & Sendable>: OutboxListener, @unchecked Sendable
where Model.ID: Sendable {
    // Unchecked because of `store`: written once, in `init`, before the listener is shared; weak references are
    // read atomically. Everything else is immutable or locked.
    private struct Shown {
        var group: String
        var id: Model.ID
        var key: LoadKey<Model.ID>
        var write: UInt64
        var previous: Model?
    }

    private weak var store: ModelStore<Model>?
    private let key: @Sendable (Model.ID) -> LoadKey<Model.ID>
    private let decode: @Sendable (Data, OutboxRecord) -> Model?
    /// Asks the server for a model again, past the HTTP cache: for a write whose outcome is unknown.
    private let refetch: @Sendable (Model.ID, LoadKey<Model.ID>) -> Void
    private let shown = Locked([UInt64: Shown]())

    init(
        store: ModelStore<Model>,
        key: @escaping @Sendable (Model.ID) -> LoadKey<Model.ID>,
        refetch: @escaping @Sendable (Model.ID, LoadKey<Model.ID>) -> Void,
        decode: @escaping @Sendable (Data, OutboxRecord) -> Model?
    ) {
        self.store = store
        self.key = key
        self.refetch = refetch
        self.decode = decode
    }

    func show(_ record: OutboxRecord, sequence: UInt64) {
        guard let store, let data = record.value, let model = try? JSONDecoder().decode(Model.self, from: data) else {
            return
        }
        let key = key(model.id)
        let previous = store.value(for: key)
        let write = store.write(model, for: key, id: model.id, confirmed: false)
        shown.withLock {
            $0[sequence] = Shown(group: record.group, id: model.id, key: key, write: write, previous: previous)
        }
    }

    func settle(_ record: OutboxRecord, sequence: UInt64, _ settlement: OutboxState.Settlement) -> OutboxListener.Later?
    {
        guard let store, let shown = shown.withLock({ $0.removeValue(forKey: sequence) }) else { return nil }
        let outcome: ModelEntry<Model>.WriteOutcome
        switch settlement {
        case .answered(let body):
            outcome = decode(body, record).map(ModelEntry<Model>.WriteOutcome.answered) ?? .accepted
        case .failed: outcome = .failed
        case .unknown: outcome = .unknown
        }
        let settled = store.settleDeferringSave(
            shown.key,
            write: shown.write,
            outcome: outcome,
            previous: shown.previous
        )
        guard settled.refetches || settled.confirmed != nil else { return nil }
        let refetch = refetch
        return {
            if let model = settled.confirmed { store.save(model, for: shown.key) }
            if settled.refetches { refetch(shown.id, shown.key) }
        }
    }

    func group(_ group: String, waitsUntil until: Date?) {
        guard let store else { return }
        let keys = shown.withLock { shown in Set(shown.values.filter { $0.group == group }.map(\.key)) }
        for key in keys { store.writeWaiting(key, until: until) }
    }
}
