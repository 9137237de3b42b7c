import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Adds a bearer token to ``EndpointKinds/Authenticated`` requests, and refreshes it once when the server
/// answers 401, however many calls are waiting.
///
///     let auth = BearerAuthentication(
///         token: { try await keychain.accessToken() },
///         refresh: { rejected in try await authServer.refresh(rejected) }
///     )
///     let client = EndpointClient(environment: env, middleware: [auth, Retry()])
///
/// - The first request asks `token` for a token; later ones reuse it.
/// - A 401 starts one refresh (single flight); every call that gets a 401 with the same token waits for
///   that refresh, then is sent again with the new token. A call whose token was already replaced is simply
///   sent again with the current one.
/// - A failed refresh fails every call rejected with that token with ``EndpointError/Kind/authenticationFailed``,
///   including calls whose 401 arrives after the failure; the next new request starts again from `token`.
/// - A refresh that returns the rejected token fails the same way instead of looping, and a request is
///   refreshed at most once: a second 401, to the request sent with the refreshed token, fails the call with
///   ``EndpointError/Kind/authenticationFailed`` and status 401. The replay is an attempt of its own in
///   ``EndpointError/attempts``.
/// - A call cancelled while it waits for a token or a refresh stops waiting at once with
///   ``EndpointError/Kind/cancelled``; the refresh goes on for the other calls.
public struct BearerAuthentication: Middleware {
    private let store: TokenStore

    /// Creates the step.
    ///
    /// - Parameters:
    ///   - token: Returns the token to start with; called once, when the first request needs it.
    ///   - refresh: Returns a new token given the rejected one; called once per rejected token.
    public init(
        token: @escaping @Sendable () async throws -> AccessToken,
        refresh: @escaping @Sendable (AccessToken) async throws -> AccessToken
    ) {
        store = TokenStore(initial: token, refresh: refresh)
    }

    /// How many times `refresh` has been called: a metric, e.g. to alert on a refresh storm.
    public var refreshCount: Int { get async { await store.refreshCount } }

    /// Authorizes `request` when its kind requires it, and replays it once after a refresh on 401.
    public func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext) async throws
        -> TransportResponse
    {
        guard context.requiresAuthentication else { return try await next(request, context: context) }
        let token: AccessToken
        if let current = store.snapshot.withLock({ $0 }) {
            token = current
        } else {
            token = try await store.token()
        }
        let response = try await next(authorized(request, with: token), context: context)
        guard response.statusCode == 401, request.canBeSentAgain else { return response }
        let renewed = try await store.token(replacing: token)
        let replayed = try await next(authorized(request, with: renewed), context: context)
        guard replayed.statusCode == 401 else { return replayed }
        throw EndpointError(
            .authenticationFailed,
            "the server rejected the refreshed token too",
            statusCode: replayed.statusCode,
            responseHeaders: replayed.headers,
            body: replayed.bufferedBody
        )
    }

    private func authorized(_ request: TransportRequest, with token: AccessToken) throws -> TransportRequest {
        if let problem = HTTPHeaders.problem(name: "Authorization", value: token.value) {
            throw EndpointError(.authenticationFailed, "the token provider returned an unusable token: \(problem)")
        }
        var request = request
        request.headers[.authorization] = "Bearer \(token.value)"
        return request
    }
}

/// The current token, and the one refresh in flight.
actor TokenStore {
    private let initial: @Sendable () async throws -> AccessToken
    private let refresh: @Sendable (AccessToken) async throws -> AccessToken
    private var current: AccessToken? {
        didSet { snapshot.withLock { $0 = current } }
    }
    /// `current`, readable without a hop onto the actor: most calls only need the token they already have.
    nonisolated let snapshot = Locked<AccessToken?>(nil)
    private var loading: SharedResult<AccessToken>?
    private var refreshing: (rejected: AccessToken, result: SharedResult<AccessToken>)?
    private var failure: (rejected: AccessToken, error: EndpointError)?
    private(set) var refreshCount = 0
    /// Owns the token loads: one goes on when the caller that started it leaves, and stops when the middleware
    /// (and so this store) goes.
    private let loads = TaskOwner()

    init(
        initial: @escaping @Sendable () async throws -> AccessToken,
        refresh: @escaping @Sendable (AccessToken) async throws -> AccessToken
    ) {
        self.initial = initial
        self.refresh = refresh
    }

    /// The current token, loading the first one once.
    func token() async throws -> AccessToken {
        if let current { return current }
        let shared: SharedResult<AccessToken>
        if let loading {
            shared = loading
        } else {
            shared = SharedResult()
            loading = shared
            let initial = self.initial
            // Held by `shared` until it resolves; the load goes on when the caller that started it leaves.
            loads.run { await shared.resolve(catching: initial) }
        }
        do {
            let token = try await shared.value()
            if current == nil { current = token }
            if loading === shared { loading = nil }
            return current ?? token
        } catch is CancellationError {
            throw EndpointError(.cancelled, "the task was cancelled while waiting for a token")
        } catch {
            if loading === shared { loading = nil }
            throw EndpointError(
                .authenticationFailed,
                "the token could not be obtained: \(error)",
                underlyingError: error
            )
        }
    }

    /// A token to replace `rejected`: the current one if it already differs, or the result of the one refresh.
    func token(replacing rejected: AccessToken) async throws -> AccessToken {
        if let current, current != rejected { return current }
        if let failure, failure.rejected == rejected { throw failure.error }
        let shared: SharedResult<AccessToken>
        if let refreshing, refreshing.rejected == rejected {
            shared = refreshing.result
        } else {
            refreshCount += 1
            let refresh = self.refresh
            shared = SharedResult()
            // Held by `shared` until it resolves; the refresh goes on when the caller that started it leaves.
            loads.run { await shared.resolve(catching: { try await refresh(rejected) }) }
            refreshing = (rejected, shared)
        }
        do {
            let renewed: AccessToken
            do {
                renewed = try await shared.value()
            } catch is CancellationError {
                throw EndpointError(.cancelled, "the task was cancelled while waiting for a token refresh")
            }
            guard renewed != rejected else {
                throw EndpointError(.authenticationFailed, "the refresh returned the token the server had rejected")
            }
            if refreshing?.rejected == rejected { refreshing = nil }
            if current == rejected || current == nil { current = renewed }
            failure = nil
            return renewed
        } catch let error as EndpointError where error.kind == .cancelled {
            throw error
        } catch {
            let failed =
                (error as? EndpointError).flatMap { $0.kind == .authenticationFailed ? $0 : nil }
                ?? EndpointError(.authenticationFailed, "the token refresh failed: \(error)", underlyingError: error)
            if refreshing?.rejected == rejected {
                refreshing = nil
                failure = (rejected, failed)
                if current == rejected { current = nil }
            }
            throw failed
        }
    }
}
