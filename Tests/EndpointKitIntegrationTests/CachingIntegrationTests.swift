import EndpointKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

private struct Versioned: Decodable, Equatable {
    var version: Int
    var authorization: String?
    var varied: String?
}

private struct Tally: Decodable { var count: Int }

/// The HTTP cache against real servers: the fault server counts what reaches it; nginx answers conditional
/// requests over http, https and HTTP/2.
@Suite(.timeLimit(.minutes(1))) struct CachingIntegrationTests {
    let key = UUID().uuidString

    func client() throws -> EndpointClient {
        EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
    }

    func count(_ name: String, with client: EndpointClient) async throws -> Int {
        var endpoint = Endpoint<EndpointKinds.Public, Tally>(path: "count/\(name)/\(key)")
        endpoint.options.isCached = false
        return try await client.response(for: endpoint).count
    }

    fileprivate func cached(_ query: [URLQueryItem] = []) -> Endpoint<EndpointKinds.Public, Versioned> {
        Endpoint(path: "cached/\(key)", queryItems: query)
    }

    @Test("A fresh response is served from the cache: the server sees one request for two calls")
    func freshHit() async throws {
        let client = try client()
        let first = try await client.exchange(for: cached())
        let second = try await client.exchange(for: cached())
        #expect(first.source == .network)
        #expect(second.source == .cache)
        #expect(second.value == first.value)
        #expect(try await count("cached", with: client) == 1)
    }

    @Test("A no-cache response is revalidated: the second call is a 304 the caller sees as the stored 200")
    func revalidated() async throws {
        let client = try client()
        let query = [URLQueryItem(name: "cc", value: "no-cache")]
        let first = try await client.exchange(for: cached(query))
        let second = try await client.exchange(for: cached(query))
        #expect(second.source == .revalidated)
        #expect(second.statusCode == 200)
        #expect(second.value == first.value)
        #expect(try await count("cached-304", with: client) == 1)
        #expect(try await count("cached-200", with: client) == 1)
    }

    @Test("The partition, on the wire: two tokens and a public call each reach the server; a repeat does not")
    func partitions() async throws {
        let client = try client()
        let query = [URLQueryItem(name: "cc", value: "private, max-age=60")]
        let privateEndpoint = Endpoint<EndpointKinds.Private, Versioned>(path: "cached/\(key)", queryItems: query)
        let alice = try await client.exchange(for: privateEndpoint, using: AccessToken("alice-token"))
        let bob = try await client.exchange(for: privateEndpoint, using: AccessToken("bob-token"))
        let aliceAgain = try await client.exchange(for: privateEndpoint, using: AccessToken("alice-token"))
        let anonymous = try await client.exchange(for: cached(query))

        #expect(alice.value.authorization == "Bearer alice-token")
        #expect(bob.value.authorization == "Bearer bob-token")
        #expect(aliceAgain.source == .cache && aliceAgain.value.authorization == "Bearer alice-token")
        #expect(anonymous.source == .network && anonymous.value.authorization == nil)
        #expect(try await count("cached", with: client) == 3)
    }

    @Test("A successful POST invalidates the resource its Location names; the next GET gets the new version")
    func invalidation() async throws {
        let client = try client()
        #expect(try await client.response(for: cached()).version == 1)
        _ = try await client.response(
            for: Endpoint<EndpointKinds.Public, EmptyResponse>(method: .post, path: "bump/\(key)")
        )
        let after = try await client.exchange(for: cached())
        #expect(after.source == .network)
        #expect(after.value.version == 2)
    }

    @Test("Vary: a response varies by the request header it names")
    func vary() async throws {
        let client = try client()
        let query = [URLQueryItem(name: "vary", value: "Accept-Language")]
        var english = cached(query)
        english.headers[.acceptLanguage] = "en"
        var french = english
        french.headers[.acceptLanguage] = "fr"
        #expect(try await client.response(for: english).varied == "en")
        #expect(try await client.response(for: french).varied == "fr")
        #expect(try await client.exchange(for: english).source == .cache)
        #expect(try await client.exchange(for: french).value.varied == "fr")
        #expect(try await count("cached", with: client) == 2)
    }

    @Test(
        "nginx answers the cache's conditional request with a 304, over http, https and HTTP/2",
        arguments: ["ENDPOINTKIT_NGINX_URL", "ENDPOINTKIT_HTTPS_URL", "ENDPOINTKIT_HTTP2_URL"]
    )
    func nginx(_ variable: String) async throws {
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.url(variable)))
        var endpoint = Endpoint<EndpointKinds.Public, Data>(path: "item.json")
        endpoint.options.cacheDirectives = .revalidate
        let first = try await client.exchange(for: endpoint)
        let second = try await client.exchange(for: endpoint)
        #expect(first.source == .network)
        #expect(second.source == .revalidated)
        #expect(second.value == first.value)
        #expect(second.headers[.eTag] == first.headers[.eTag])
    }

    @Test(
        "stale-while-revalidate at the fault server: the stale copy is served, and the revalidation goes through the middleware and observers"
    )
    func staleWhileRevalidateThroughPipeline() async throws {
        let records = RecordLog()
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.fault()),
            middleware: [StampAuthorization()],
            observers: [records]
        )
        let query = [URLQueryItem(name: "cc", value: "max-age=0, stale-while-revalidate=60")]
        let first = try await client.exchange(for: cached(query))

        let stale = try await client.exchange(for: cached(query))
        var awaited = Endpoint<EndpointKinds.Public, Tally>(path: "await/cached-304/\(key)")
        awaited.options.isCached = false
        _ = try await client.response(for: awaited)
        // The suite's time limit ends this if the record never comes.
        while !records.sawNotModified { await Task.yield() }

        #expect(first.value.authorization == "Bearer stamped")
        #expect(stale.source == .cache && stale.value == first.value)
        #expect(
            try await count("cached-304", with: client) == 1,
            "the revalidation was conditional, stamped like any call"
        )
        #expect(records.sawNotModified, "the revalidation has a record of its own")
    }
}

/// Sets a bearer token on every request, as an auth middleware would.
private struct StampAuthorization: Middleware {
    func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext) async throws
        -> TransportResponse
    {
        var request = request
        request.headers[.authorization] = "Bearer stamped"
        return try await next(request, context: context)
    }
}

/// Whether an exchange answered 304 was recorded.
private final class RecordLog: ExchangeObserver {
    private let lock = NSLock()
    // Safe because every access holds `lock`.
    nonisolated(unsafe) private var notModified = false
    var sawNotModified: Bool { lock.withLock { notModified } }

    func observe(_ event: ExchangeEvent) {
        guard case .exchangeCompleted(let record) = event, record.statusCode == 304 else { return }
        lock.withLock { notModified = true }
    }
}
