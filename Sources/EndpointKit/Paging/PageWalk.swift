/// One walk of a paged list as an instrument sees it: which page a call fetches, the walk's route, and a place to
/// keep what ties the pages together (a trace context), shared by every page of the walk.
///
/// ``Pages`` sets it on each page's endpoint (``RequestOptions/pageWalk``); middleware and instruments read it from
/// ``RequestContext/options``. The Observability adapter makes every page of a walk one trace, each page named by
/// the walk's route, even the pages reached through an absolute `Link` URL, whose own route is unknown.
///
///     struct PageLogger: Middleware {
///         func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext) async throws
///             -> TransportResponse
///         {
///             if let walk = context.options.pageWalk { print("page \(walk.page) of \(walk.template ?? "?")") }
///             return try await next(request, context: context)
///         }
///     }
public struct PageWalk: Sendable {
    /// What the pages of one walk share.
    final class Shared: Sendable {
        let template: String?
        let context = Locked<(any Sendable)?>(nil)

        init(template: String?) { self.template = template }
    }

    /// Which page of the walk this call fetches, from 1.
    public let page: Int
    let shared: Shared

    init(page: Int, shared: Shared) {
        self.page = page
        self.shared = shared
    }

    /// The route of the walk's first page, with the base URL's path (`/v1/items`); `nil` when it is unknown.
    public var template: String? { shared.template }

    /// What an instrument kept for the walk, if it is a `Value`: on the first page, `nil`.
    public func context<Value: Sendable>(as type: Value.Type) -> Value? {
        shared.context.withLock { $0 as? Value }
    }

    /// Keeps `value` for the pages after this one, unless something is kept already; returns what is kept.
    @discardableResult
    public func keepContext<Value: Sendable>(_ value: Value) -> Value {
        shared.context.withLock { kept in
            if let existing = kept as? Value { return existing }
            kept = value
            return value
        }
    }
}
