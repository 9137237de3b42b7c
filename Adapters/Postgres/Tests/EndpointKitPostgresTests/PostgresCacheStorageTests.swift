#if Postgres && AsyncHTTPClient
import EndpointKit
import EndpointKitTesting
import Foundation
import Logging
import PostgresNIO
import Testing

@testable import EndpointKitPostgres

/// The fault server's `/cached/KEY` body: its version, and the Authorization header it was asked with.
private struct Versioned: Decodable, Equatable, Sendable {
    var version: Int
    var authorization: String?
}

extension FleetFixture {
    /// `/cached/KEY` with `Cache-Control: cc` (the server's default, `max-age=60`, for `nil`), called with a token.
    fileprivate func cached(_ cc: String? = nil) -> Endpoint<EndpointKinds.Private, Versioned> {
        Endpoint(path: "cached/\(key)", queryItems: cc.map { [URLQueryItem(name: "cc", value: $0)] } ?? [])
    }

    /// A client of the fault server whose cache is `storage`: one instance of a fleet.
    fileprivate func client(cachingIn storage: PostgresCacheStorage, timeout: Duration = .seconds(5)) -> EndpointClient
    {
        var defaults = RequestDefaults()
        defaults.timeout = timeout
        return EndpointClient(
            environment: ServerEnvironment(baseURL: server),
            transport: transport,
            defaults: defaults,
            cache: HTTPCache(storage: storage)
        )
    }
}

/// One instance of a fleet: its cache storage (its own memory in front of the shared table) and its client.
private struct Instance {
    let storage: PostgresCacheStorage
    let client: EndpointClient
}

extension TestDatabase {
    /// Two instances on this database's schema, calling the fault server of `fixture`.
    fileprivate func twoInstances(_ fixture: FleetFixture) async throws -> (Instance, Instance) {
        let (first, second) = (try await cache(), try await cache())
        return (
            Instance(storage: first, client: fixture.client(cachingIn: first)),
            Instance(storage: second, client: fixture.client(cachingIn: second))
        )
    }

    /// A cache storage on this database's schema: one instance's.
    fileprivate func cache(
        maximumSize: Int = 1 << 20,
        memorySize: Int = 1 << 20,
        retryInterval: Duration = .seconds(5),
        fillWait: Duration = .seconds(20)
    ) async throws -> PostgresCacheStorage {
        try await PostgresCacheStorage.prepared(
            postgres: client,
            configuration: PostgresCacheConfiguration(
                schema: schema,
                maximumSize: maximumSize,
                maximumEntrySize: 64 << 10,
                memorySize: memorySize,
                timeout: .seconds(5),
                retryInterval: retryInterval,
                fillWait: fillWait
            ),
            logger: logger
        )
    }
}

/// The cache a fleet shares: what one instance stored serves or revalidates in another, never across credentials,
/// bounded, a damaged row or an unusable table a miss, an invalidation heard by every instance.
@Suite(.timeLimit(.minutes(2)))
struct PostgresCacheStorageTests {
    @Test(
        "What one instance stored, another serves (fresh) or revalidates with its validators (stale)",
        arguments: Stack.allCases
    )
    func sharedBetweenInstances(stack: Stack) async throws {
        try await TestDatabase.with { database in
            let fixture = try FleetFixture(stack)
            let (first, second) = try await database.twoInstances(fixture)
            #expect(first.storage.partitionSecret == second.storage.partitionSecret)
            #expect(first.storage.partitionSecret?.count == 32)
            let (one, two) = (first.client, second.client)

            let fetched = try await one.exchange(for: fixture.cached(), using: AccessToken("one"))
            let served = try await two.exchange(for: fixture.cached(), using: AccessToken("one"))
            #expect(fetched.source == .network && served.source == .cache && served.value == fetched.value)

            let stale = fixture.cached("max-age=0")
            _ = try await one.exchange(for: stale, using: AccessToken("one"))
            let revalidated = try await two.exchange(for: stale, using: AccessToken("one"))
            #expect(revalidated.source == .revalidated && revalidated.value.authorization == "Bearer one")
            #expect(try await fixture.count("cached-200") == 2, "one full response per resource")
            #expect(try await fixture.count("cached-304") == 1, "the second instance asked with the first's ETag")
        }
    }

    @Test(
        "A response is never served to another credential or to none; rows name neither URL nor credential",
        arguments: Stack.allCases
    )
    func partitionedByCredential(stack: Stack) async throws {
        try await TestDatabase.with { database in
            let fixture = try FleetFixture(stack)
            let (one, two) = try await database.twoInstances(fixture)
            _ = try await one.client.exchange(for: fixture.cached(), using: AccessToken("token-one"))

            let other = try await two.client.exchange(for: fixture.cached(), using: AccessToken("token-two"))
            let anonymous = try await two.client.exchange(
                for: Endpoint<EndpointKinds.Public, Versioned>(path: "cached/\(fixture.key)")
            )
            #expect(other.source == .network && other.value.authorization == "Bearer token-two")
            #expect(anonymous.source == .network && anonymous.value.authorization == nil)
            let names = try await database.texts(
                "SELECT url_name || ' ' || key_name FROM \(database.schema).cache_entries"
            )
            #expect(names.count == 3)
            for name in names.compactMap({ $0 }) {
                #expect(!name.contains(fixture.key) && !name.contains("token") && !name.contains("cached"))
            }
        }
    }

    @Test(
        "A damaged row is a miss: the call goes to the server, and the row is stored whole again",
        arguments: Stack.allCases
    )
    func damagedRowIsAMiss(stack: Stack) async throws {
        try await TestDatabase.with { database in
            let fixture = try FleetFixture(stack)
            let writer = fixture.client(cachingIn: try await database.cache())
            _ = try await writer.exchange(for: fixture.cached(), using: AccessToken("one"))
            let table = "\(database.schema).cache_entries"
            for damage in ["substring(variants from 1 for length(variants) - 3)", "'\\x454b4331'::bytea", "''::bytea"] {
                try await database.execute("UPDATE \(table) SET variants = \(damage)")
                // A new instance: nothing in memory, so the read is the table's.
                let reader = fixture.client(cachingIn: try await database.cache())
                let read = try await reader.exchange(for: fixture.cached(), using: AccessToken("one"))
                #expect(read.source == .network && read.value.authorization == "Bearer one", "\(damage)")
                let whole = try await fixture.client(cachingIn: try await database.cache())
                    .exchange(for: fixture.cached(), using: AccessToken("one"))
                #expect(whole.source == .cache, "the next instance reads the row stored again (\(damage))")
            }
            #expect(try await fixture.count("cached-200") == 4)
        }
    }

    @Test(
        "Calls that miss one key at once, in two instances, cost the upstream one full response",
        arguments: Stack.allCases
    )
    func missesCoalesce(stack: Stack) async throws {
        try await TestDatabase.with { database in
            let fixture = try FleetFixture(stack)
            let (one, two) = try await database.twoInstances(fixture)
            let clients = [one.client, two.client]
            // The upstream answers late, so that every call misses while the first is on its way.
            let slow = Endpoint<EndpointKinds.Private, Versioned>(
                path: "cached/\(fixture.key)",
                queryItems: [URLQueryItem(name: "cc", value: "max-age=0"), URLQueryItem(name: "delay", value: "300")]
            )
            let sources = try await withThrowingTaskGroup(of: ResponseSource.self) { calls in
                for index in 0..<8 {
                    calls.addTask { try await clients[index % 2].exchange(for: slow, using: AccessToken("one")).source }
                }
                return try await calls.reduce(into: []) { $0.append($1) }
            }
            #expect(try await fixture.count("cached-200") == 1, "one full response; sources: \(sources)")
            #expect(sources.filter { $0 == .network }.count == 1)

            // A response that may not be stored ends the claim with nothing: the waiting calls send their own.
            let unstorable = Endpoint<EndpointKinds.Private, Versioned>(
                path: "cached/\(fixture.key)",
                queryItems: [URLQueryItem(name: "cc", value: "no-store"), URLQueryItem(name: "delay", value: "100")]
            )
            let answers = try await withThrowingTaskGroup(of: Versioned.self) { calls in
                for index in 0..<4 {
                    calls.addTask { try await clients[index % 2].response(for: unstorable, using: AccessToken("one")) }
                }
                return try await calls.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.count == 4 && answers.allSatisfy { $0.authorization == "Bearer one" })
            #expect(try await fixture.count("cached-200") == 5)
            #expect(try await database.integers("SELECT count(*)::bigint FROM \(database.schema).cache_fills") == [0])
        }
    }

    @Test(
        "A call that waits for another instance's fetch ends by its own deadline, not the other fetch's",
        arguments: Stack.allCases
    )
    func fillWaitKeepsTheDeadline(stack: Stack) async throws {
        try await TestDatabase.with { database in
            let fixture = try FleetFixture(stack)
            let holder = fixture.client(cachingIn: try await database.cache())
            let hurried = fixture.client(cachingIn: try await database.cache(), timeout: .milliseconds(300))
            let slow = Endpoint<EndpointKinds.Private, Versioned>(
                path: "cached/\(fixture.key)",
                queryItems: [URLQueryItem(name: "cc", value: "max-age=60"), URLQueryItem(name: "delay", value: "3000")]
            )
            async let held = holder.exchange(for: slow, using: AccessToken("one"))
            // The upstream has the holder's request: its claim is in the table.
            _ = try await fixture.client().response(
                for: Endpoint<EndpointKinds.Public, Data>(path: "await/cached/\(fixture.key)")
            )
            let started = ContinuousClock.now
            let error = await #expect(throws: EndpointError.self) {
                try await hurried.exchange(for: slow, using: AccessToken("one"))
            }
            print("the hurried call ended after \(started.duration(to: .now)): \(error?.message ?? "no error")")
            #expect(error?.kind == .timedOut && error?.message.contains("300 ms") == true)
            // It ended before the upstream answered the holder (3 s late), not once the holder's response came.
            #expect(try await fixture.count("cached-200") == 0, "the hurried call waited for the holder's fetch")
            #expect(try await held.source == .network)
            #expect(try await fixture.count("cached-200") == 1, "the hurried call sent nothing")
        }
    }

    @Test("The table stays within its bytes, least recently used out first")
    func boundedInBytes() async throws {
        try await TestDatabase.with { database in
            let storage = try await database.cache(maximumSize: 64 << 10, memorySize: 0)
            let body = Data(repeating: 7, count: 4 << 10)
            for index in 0..<100 {
                let entry = HTTPCache.Entry(
                    statusCode: 200,
                    headers: ["ETag": "\"\(index)\""],
                    body: body,
                    requestDate: Date(),
                    responseDate: Date(),
                    secondaryKey: nil
                )
                await storage.store(
                    entry,
                    for: HTTPCache.Key(partition: "", method: .get, url: "https://a.test/\(index)")
                )
            }
            let total = try await database.integers("SELECT sum(size)::bigint FROM \(database.schema).cache_entries")
            #expect((total.first ?? .max) <= 64 << 10)
            let newest = await storage.entries(
                for: HTTPCache.Key(partition: "", method: .get, url: "https://a.test/99")
            )
            let oldest = await storage.entries(for: HTTPCache.Key(partition: "", method: .get, url: "https://a.test/0"))
            #expect(newest.first?.headers[.eTag] == "\"99\"" && oldest.isEmpty)
        }
    }

    @Test(
        "An unsafe request in one instance removes the URL's responses from another instance's memory",
        arguments: Stack.allCases
    )
    func invalidationReachesEveryInstance(stack: Stack) async throws {
        try await TestDatabase.with { database in
            let fixture = try FleetFixture(stack)
            let (one, two) = try await database.twoInstances(fixture)
            let second = two.storage
            var events = second.listenerEvents.stream.makeAsyncIterator()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await second.run() }
                defer { group.cancelAll() }
                // Each wait ends when its signal comes, or when the suite's time limit cancels the test.
                #expect(await events.next() == .listening)
                _ = try await one.client.exchange(for: fixture.cached(), using: AccessToken("one"))
                _ = try await two.client.exchange(for: fixture.cached(), using: AccessToken("one"))
                #expect(second.memory.count == 1, "the second instance keeps the response in memory")

                _ = try await one.client.response(
                    for: Endpoint<EndpointKinds.Public, Data>(method: .post, path: "bump/\(fixture.key)")
                )
                // The POST's own URL is announced first, then its Location, the cached URL.
                while second.memory.count > 0, let event = await events.next() {
                    #expect(event != .listening, "the listener did not begin again")
                }
                let after = try await two.client.exchange(for: fixture.cached(), using: AccessToken("one"))
                #expect(after.source == .network && after.value.version == 2)
            }
        }
    }

    @Test(
        "A table that fails is a miss and calls go on, served from memory while it is left alone",
        arguments: Stack.allCases
    )
    func unusableTableIsAMiss(stack: Stack) async throws {
        try await TestDatabase.with { database in
            let fixture = try FleetFixture(stack)
            let storage = try await database.cache(retryInterval: .seconds(60))
            let client = fixture.client(cachingIn: storage)
            try await database.dropSchema()
            let first = try await client.exchange(for: fixture.cached(), using: AccessToken("one"))
            let second = try await client.exchange(for: fixture.cached(), using: AccessToken("one"))
            #expect(first.source == .network && second.source == .cache)
            let fresh = fixture.client(cachingIn: storage)
            let other = try await fresh.exchange(for: fixture.cached("max-age=5"), using: AccessToken("one"))
            #expect(other.source == .network && other.value.authorization == "Bearer one")
        }
    }

    @Test("A schema name that is not a plain identifier is refused before any statement")
    func refusesBadSchema() async throws {
        try await TestDatabase.with { database in
            let error = await #expect(throws: EndpointError.self) {
                _ = try await PostgresCacheStorage.prepared(
                    postgres: database.client,
                    configuration: PostgresCacheConfiguration(schema: "x; DROP TABLE y")
                )
            }
            #expect(error?.kind == .invalidRequest)
        }
    }
}
#endif
