/// Watches what happens during calls without changing it: attempts, redirect hops, progress and decoding.
///
///     struct Metrics: ExchangeObserver {
///         func observe(_ event: ExchangeEvent) {
///             if case .exchangeCompleted(let record) = event { histogram.record(record.duration) }
///         }
///     }
///     let client = EndpointClient(environment: env, observers: [Metrics()])
///
/// Observation is separate from interception: an observer cannot change a request or a response, and sees
/// every attempt and every hop wherever a middleware sits. `observe(_:)` is called on the task that makes the
/// call, in order; keep it quick, and hand slow work elsewhere. Events never hold secrets: URLs and headers
/// are redacted by the client's ``RequestDefaults/sensitiveHeaders`` and ``RequestDefaults/sensitiveQueryNames``.
public protocol ExchangeObserver: Sendable {
    /// Called for each event of each call.
    func observe(_ event: ExchangeEvent)
}
