#if AsyncHTTPClient
import EndpointKit
import EndpointKitAsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import Testing

private struct Versioned: Decodable, Equatable {
    var version: Int
    var authorization: String?
}

private struct Issue: Decodable, Equatable {
    var id: Int
    var title: String
}

/// The HTTP cache and pagination are the pipeline's, so they hold through AsyncHTTPClient as through URLSession:
/// AsyncHTTPClient has no cache of its own.
@Suite(.timeLimit(.minutes(1)))
struct CachingTests {
    private let transport = AsyncHTTPClientTransport()
    private let key = UUID().uuidString

    @Test("stale-while-revalidate: the stale copy is served, and the revalidation is recorded for the observers")
    func staleWhileRevalidate() async throws {
        let records = NotModifiedLog()
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.fault()),
            transport: transport,
            observers: [records]
        )
        let counters = try Counters()
        let endpoint = Endpoint<EndpointKinds.Public, Versioned>(
            path: "cached/\(key)",
            queryItems: [URLQueryItem(name: "cc", value: "max-age=0, stale-while-revalidate=60")]
        )
        let first = try await client.exchange(for: endpoint)

        let stale = try await client.exchange(for: endpoint)
        _ = try await counters.await("cached-304", key)
        // The suite's time limit ends this if the record never comes.
        while !records.sawNotModified { await Task.yield() }

        #expect(stale.source == .cache && stale.value == first.value)
        #expect(try await counters.count("cached-304", key) == 1)
        #expect(records.sawNotModified, "the revalidation has a record of its own")
    }

    @Test("A fresh response is served from the cache and a no-cache one revalidated with a 304, per token")
    func cacheThroughAsyncHTTPClient() async throws {
        let client = TestServers.client(try TestServers.fault(), transport)
        let counters = try Counters()
        let fresh = Endpoint<EndpointKinds.Private, Versioned>(
            path: "cached/\(key)",
            queryItems: [URLQueryItem(name: "cc", value: "private, max-age=60")]
        )
        _ = try await client.response(for: fresh, using: AccessToken("one"))
        let hit = try await client.exchange(for: fresh, using: AccessToken("one"))
        let other = try await client.exchange(for: fresh, using: AccessToken("two"))
        #expect(hit.source == .cache && hit.value.authorization == "Bearer one")
        #expect(other.source == .network && other.value.authorization == "Bearer two")
        #expect(try await counters.count("cached", key) == 2)

        var revalidate = fresh
        revalidate.options.cacheDirectives = .revalidate
        let revalidated = try await client.exchange(for: revalidate, using: AccessToken("one"))
        #expect(revalidated.source == .revalidated && revalidated.statusCode == 200)
        #expect(revalidated.value == hit.value)
        #expect(try await counters.count("cached-304", key) == 1)
    }

    @Test("Pages by Link, and a second walk of unchanged pages is all 304s")
    func pagesThroughAsyncHTTPClient() async throws {
        let client = TestServers.client(try TestServers.fault(), transport)
        let counters = try Counters()
        let first = Endpoint<EndpointKinds.Public, [Issue]>(
            path: "pages/\(key)",
            queryItems: [
                URLQueryItem(name: "total", value: "95"), URLQueryItem(name: "cc", value: "private, max-age=0"),
            ]
        )
        for walk in 1...2 {
            var ids: [Int] = []
            for try await issue in client.pages(for: first, next: .link).elements { ids.append(issue.id) }
            #expect(ids == Array(1...95), "walk \(walk)")
        }
        #expect(try await counters.count("pages-200", key) == 4)
        #expect(try await counters.count("pages-304", key) == 4)
    }
}

/// Whether an exchange answered 304 was recorded.
private final class NotModifiedLog: ExchangeObserver {
    private let seen = NIOLockedValueBox(false)
    var sawNotModified: Bool { seen.withLockedValue { $0 } }

    func observe(_ event: ExchangeEvent) {
        guard case .exchangeCompleted(let record) = event, record.statusCode == 304 else { return }
        seen.withLockedValue { $0 = true }
    }
}
#endif
