import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Reports every exchange (every hop of every attempt) to a closure of yours, so you can forward it to any
/// logger or metrics system.
///
///     let logging = ExchangeLogging { record in logger.info("\(record)") }
///     EndpointClient(environment: env, observers: [logging])
///
/// It is an ``ExchangeObserver``: it sees every attempt, numbered as ``EndpointError/attempts`` counts them
/// (retries, validator retries and replays after a token refresh included), and every redirect hop. Listing
/// it among a client's `middleware` works as well and registers it as an observer; its position there does
/// not matter. Records never hold secrets: the URL and headers are redacted by the client's
/// ``RequestDefaults/sensitiveHeaders`` and ``RequestDefaults/sensitiveQueryNames``. An endpoint can opt out
/// with `options.isLogged = false`.
public struct ExchangeLogging: ExchangeObserver, Middleware {
    private let report: @Sendable (ExchangeRecord) -> Void

    /// Creates the observer.
    ///
    /// - Parameter report: Called once per hop, on the task that makes the call.
    public init(report: @escaping @Sendable (ExchangeRecord) -> Void) {
        self.report = report
    }

    /// Reports each completed exchange.
    public func observe(_ event: ExchangeEvent) {
        if case .exchangeCompleted(let record) = event, record.isLogged { report(record) }
    }

    /// Passes `request` on unchanged: listed as a middleware, ExchangeLogging only observes.
    public func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext) async throws
        -> TransportResponse
    {
        try await next(request, context: context)
    }
}
