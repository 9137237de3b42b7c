import EndpointKitTesting
import Foundation

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A wall clock a test moves by hand.
final class WallClock: Sendable {
    private let now = Locked(Date(timeIntervalSince1970: 1_700_000_000))
    var date: Date { now.withLock { $0 } }
    func advance(_ seconds: Double) { now.withLock { $0 += seconds } }
}

/// A client with a cache on a hand-moved wall clock, and a stub server that answers with `reply` and counts.
struct CacheHarness: Sendable {
    let wall = WallClock()
    let transport: StubTransport
    let client: EndpointClient
    let cache: HTTPCache
    let storage: MemoryCacheStorage
    let events: EventLog
    /// An element each time something is stored: a signal to wait on for work done in the background.
    let stores: AsyncStream<Void>

    /// `reply` gets each request and the number it is (from 1).
    init(
        storage: MemoryCacheStorage = MemoryCacheStorage(),
        middleware: [any Middleware] = [],
        reply: @escaping @Sendable (TransportRequest, Int) async throws -> StubResponse
    ) {
        let counter = Locked(0)
        let wall = self.wall
        transport = StubTransport { request in
            let number = counter.withLock { count in
                count += 1
                return count
            }
            return try await reply(request, number)
        }
        self.storage = storage
        let (stores, continuation) = AsyncStream<Void>.makeStream()
        self.stores = stores
        cache = HTTPCache(storage: NotifyingStorage(inner: storage, stored: continuation), date: { wall.date })
        events = EventLog()
        client = EndpointClient(
            environment: Fixture.environment,
            transport: transport,
            middleware: middleware,
            observers: [events],
            cache: cache
        )
    }

    /// How many requests reached the server.
    var sent: Int { get async { await transport.transportRequests.count } }
    /// The last request that reached the server.
    var last: TransportRequest? { get async { await transport.transportRequests.last } }
}

extension EventLog {
    /// Where each response the cache took part in came from, in order.
    var cacheSources: [ResponseSource] {
        all.compactMap { event in
            if case .cache(_, _, let source) = event { return source }
            return nil
        }
    }
}

extension StubResponse {
    /// A 200 with a JSON item body and `headers`.
    static func item(_ id: Int, _ name: String, headers: HTTPHeaders) -> StubResponse {
        var headers = headers
        headers[.contentType] = "application/json"
        return .response(status: 200, headers: headers, body: Data(#"{"id": \#(id), "name": "\#(name)"}"#.utf8))
    }
}

/// A storage that reports each store, so that a test waits for a background revalidation by a signal. Each of its
/// methods suspends before it answers, as a storage that reaches a database does: every cache test runs through an
/// asynchronous storage.
private struct NotifyingStorage: HTTPCache.Storage {
    let inner: MemoryCacheStorage
    let stored: AsyncStream<Void>.Continuation
    func entries(for key: HTTPCache.Key) async -> [HTTPCache.Entry] {
        await Task.yield()
        return inner.entries(for: key)
    }
    func store(_ entry: HTTPCache.Entry, for key: HTTPCache.Key) async {
        await Task.yield()
        inner.store(entry, for: key)
        stored.yield()
    }
    func removeEntries(for key: HTTPCache.Key) async {
        await Task.yield()
        inner.removeEntries(for: key)
    }
    func removeEntries(forURL url: String) async {
        await Task.yield()
        inner.removeEntries(forURL: url)
    }
    func removeAll() async {
        await Task.yield()
        inner.removeAll()
    }
    var partitionSecret: Data? { nil }
}
