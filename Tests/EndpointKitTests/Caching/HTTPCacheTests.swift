import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The cache through a client: what reaches the server, what the caller gets, and where it says it came from.
@Suite(.timeLimit(.minutes(1))) struct HTTPCacheTests {
    @Test("§4.2: a fresh response is served with no request, says it came from the cache, and carries Age")
    func freshHit() async throws {
        let harness = CacheHarness { _, number in
            .item(1, "tea \(number)", headers: ["Cache-Control": "max-age=60"])
        }
        let first = try await harness.client.exchange(for: .item(1))
        harness.wall.advance(30)
        let second = try await harness.client.exchange(for: .item(1))

        #expect(await harness.sent == 1)
        #expect(first.source == .network)
        #expect(second.source == .cache)
        #expect(second.value == first.value)
        #expect(second.headers[.age] == "30")
        #expect(harness.events.cacheSources == [.network, .cache])
        #expect(harness.events.records.last?.description.hasSuffix("from cache)") == true)
    }

    @Test(
        "§4.3.1–4.3.4: a stale response is revalidated with If-None-Match and If-Modified-Since; the 304 serves it as a 200 with merged headers"
    )
    func revalidation() async throws {
        let harness = CacheHarness { request, number in
            if number == 1 {
                return .item(
                    1,
                    "tea",
                    headers: [
                        "Cache-Control": "max-age=10", "ETag": "\"v1\"",
                        "Last-Modified": "Tue, 14 Nov 2023 22:00:00 GMT",
                        "X-Version": "1",
                    ]
                )
            }
            return .response(
                status: 304,
                headers: ["Cache-Control": "max-age=100", "ETag": "\"v1\"", "X-Version": "2"]
            )
        }
        _ = try await harness.client.exchange(for: .item(1))
        harness.wall.advance(11)
        let revalidated = try await harness.client.exchange(for: .item(1))

        let conditional = try #require(await harness.last)
        #expect(conditional.headers[.ifNoneMatch] == "\"v1\"")
        #expect(conditional.headers[.ifModifiedSince] == "Tue, 14 Nov 2023 22:00:00 GMT")
        #expect(revalidated.statusCode == 200)
        #expect(revalidated.source == .revalidated)
        #expect(revalidated.value == Item(id: 1, name: "tea"))
        #expect(revalidated.headers["X-Version"] == "2")
        #expect(revalidated.headers[.contentType] == "application/json")
        // The log shows the wire: the conditional request and its 304 of no bytes.
        let record = try #require(harness.events.records.last)
        #expect(record.statusCode == 304 && record.bytesReceived == 0 && record.source == .revalidated)
        #expect(record.requestHeaders[.ifNoneMatch] == "\"v1\"")
        #expect(record.description.hasSuffix("revalidated)"))
        // The 304's max-age freshened the stored response.
        harness.wall.advance(50)
        #expect(try await harness.client.exchange(for: .item(1)).source == .cache)
        #expect(await harness.sent == 2)
    }

    @Test("§4.3.1: If-None-Match lists the ETags of every stored variant")
    func everyETag() async throws {
        let harness = CacheHarness { request, number in
            number <= 2
                ? .item(
                    1,
                    request.headers[.accept] ?? "",
                    headers: [
                        "ETag": "\"\(request.headers[.accept] ?? "")\"", "Vary": "Accept",
                    ]
                )
                : .response(status: 304, headers: ["ETag": "\"b\""])
        }
        var first = Endpoint<EndpointKinds.Public, Item>.item(1)
        first.headers[.accept] = "a"
        var second = first
        second.headers[.accept] = "b"
        _ = try await harness.client.response(for: first)
        _ = try await harness.client.response(for: second)
        let again = try await harness.client.exchange(for: second)

        let tags = try #require(await harness.last?.headers[.ifNoneMatch])
        #expect(Set(tags.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }) == ["\"a\"", "\"b\""])
        #expect(again.value.name == "b")
        #expect(again.source == .revalidated)
    }

    @Test("§4.1: Vary selects the variant by the request's headers; a different Accept is a miss")
    func vary() async throws {
        let harness = CacheHarness { request, _ in
            .item(1, request.headers[.accept] ?? "none", headers: ["Cache-Control": "max-age=60", "Vary": "Accept"])
        }
        var json = Endpoint<EndpointKinds.Public, Item>.item(1)
        json.headers[.accept] = "application/json"
        var other = json
        other.headers[.accept] = "application/vnd.v2+json"

        #expect(try await harness.client.response(for: json).name == "application/json")
        #expect(try await harness.client.response(for: other).name == "application/vnd.v2+json")
        #expect(try await harness.client.exchange(for: json).source == .cache)
        #expect(try await harness.client.exchange(for: other).source == .cache)
        #expect(await harness.sent == 2)
    }

    @Test("§5.2.2.4: a response with no-cache is revalidated every time")
    func responseNoCache() async throws {
        let harness = CacheHarness { _, number in
            number == 1
                ? .item(1, "tea", headers: ["Cache-Control": "no-cache, max-age=600", "ETag": "\"1\""])
                : .response(status: 304, headers: ["ETag": "\"1\""])
        }
        _ = try await harness.client.response(for: .item(1))
        #expect(try await harness.client.exchange(for: .item(1)).source == .revalidated)
        #expect(try await harness.client.exchange(for: .item(1)).source == .revalidated)
        #expect(await harness.sent == 3)
    }

    @Test(
        "§5.2.2.2: must-revalidate never serves stale; a failed revalidation is an error, whatever stale-if-error says"
    )
    func mustRevalidate() async throws {
        let harness = CacheHarness { _, number in
            number == 1
                ? .item(
                    1,
                    "tea",
                    headers: [
                        "Cache-Control": "max-age=10, must-revalidate, stale-if-error=600", "ETag": "\"1\"",
                    ]
                )
                : .connectionLost()
        }
        _ = try await harness.client.response(for: .item(1))
        harness.wall.advance(20)
        var stale = Endpoint<EndpointKinds.Public, Item>.item(1)
        stale.options.cacheDirectives.maxStale = .seconds(3600)
        stale.options.cacheDirectives.staleIfError = .seconds(3600)
        let error = await #expect(throws: EndpointError.self) { try await harness.client.response(for: stale) }
        #expect(error?.kind == .transportFailed)
    }

    @Test("§5.2.1.1 max-age, §5.2.1.2 max-stale, §5.2.1.3 min-fresh, §5.2.1.4 no-cache as endpoint directives")
    func requestDirectives() async throws {
        let harness = CacheHarness { _, number in
            number == 1
                ? .item(1, "tea", headers: ["Cache-Control": "max-age=60", "ETag": "\"1\""])
                : .response(status: 304, headers: ["ETag": "\"1\"", "Cache-Control": "max-age=60"])
        }
        _ = try await harness.client.response(for: .item(1))
        harness.wall.advance(30)
        func source(_ directives: CacheDirectives) async throws -> ResponseSource {
            var endpoint = Endpoint<EndpointKinds.Public, Item>.item(1)
            endpoint.options.cacheDirectives = directives
            return try await harness.client.exchange(for: endpoint).source
        }
        #expect(try await source(CacheDirectives(maxAge: .seconds(40))) == .cache)
        #expect(try await source(CacheDirectives(maxAge: .seconds(20))) == .revalidated)  // now age 0
        harness.wall.advance(50)  // age 50 of 60
        #expect(try await source(CacheDirectives(minFresh: .seconds(5))) == .cache)
        #expect(try await source(CacheDirectives(minFresh: .seconds(20))) == .revalidated)
        harness.wall.advance(70)  // stale by 10
        #expect(try await source(CacheDirectives(maxStale: .seconds(15))) == .cache)
        #expect(try await source(CacheDirectives(maxStale: .seconds(5))) == .revalidated)
        #expect(try await source(.revalidate) == .revalidated)
        #expect(await harness.sent == 5)
    }

    @Test("A Cache-Control header the endpoint sets by hand counts as its directives, and is sent")
    func requestHeader() async throws {
        let harness = CacheHarness { _, number in
            number == 1
                ? .item(1, "tea", headers: ["Cache-Control": "max-age=60", "ETag": "\"1\""])
                : .response(status: 304, headers: ["ETag": "\"1\""])
        }
        _ = try await harness.client.response(for: .item(1))
        var endpoint = Endpoint<EndpointKinds.Public, Item>.item(1)
        endpoint.headers[.cacheControl] = "no-cache"
        #expect(try await harness.client.exchange(for: endpoint).source == .revalidated)
        #expect(await harness.last?.headers[.cacheControl] == "no-cache")
    }

    @Test("§5.2.1.7: only-if-cached serves what is stored and never sends; with nothing stored it is notCached")
    func onlyIfCached() async throws {
        let harness = CacheHarness { _, _ in .item(1, "tea", headers: ["Cache-Control": "max-age=60"]) }
        var endpoint = Endpoint<EndpointKinds.Public, Item>.item(1)
        endpoint.options.cacheDirectives = .onlyIfCached
        let error = await #expect(throws: EndpointError.self) { try await harness.client.response(for: endpoint) }
        #expect(error?.kind == .notCached)
        #expect(await harness.sent == 0)

        _ = try await harness.client.response(for: .item(1))
        #expect(try await harness.client.exchange(for: endpoint).source == .cache)
        #expect(await harness.sent == 1)
    }

    @Test("The partition: a response fetched with one token is never served to another token or to a public call")
    func partitionByCredential() async throws {
        let harness = CacheHarness(middleware: []) { request, _ in
            let who = request.headers[.authorization] ?? "nobody"
            return .response(
                status: 200,
                headers: ["Cache-Control": "private, max-age=60", "Content-Type": "application/json"],
                body: Data(#"{"items": [{"id": 1, "name": "\#(who)"}]}"#.utf8)
            )
        }
        let alice = try await harness.client.exchange(for: .search(for: "tea"), using: AccessToken("alice-secret"))
        let bob = try await harness.client.exchange(for: .search(for: "tea"), using: AccessToken("bob-secret"))
        let aliceAgain = try await harness.client.exchange(for: .search(for: "tea"), using: AccessToken("alice-secret"))
        let open = Endpoint<EndpointKinds.Public, SearchResults>(
            path: "search",
            queryItems: [URLQueryItem(name: "q", value: "tea")]
        )
        let anonymous = try await harness.client.exchange(for: open)

        #expect(alice.value.items.first?.name == "Bearer alice-secret")
        #expect(bob.value.items.first?.name == "Bearer bob-secret")
        #expect(bob.source == .network)
        #expect(aliceAgain.source == .cache)
        #expect(aliceAgain.value.items.first?.name == "Bearer alice-secret")
        #expect(anonymous.value.items.first?.name == "nobody")
        #expect(await harness.sent == 3)
        // Nothing the client reports shows a credential or a partition.
        let partition = harness.cache.key(
            for: try #require(await harness.transport.transportRequests.first),
            redactor: Redactor()
        ).partition
        #expect(!partition.isEmpty && !partition.contains("alice"))
        for event in harness.events.all {
            let text = "\(event)"
            #expect(!text.contains("alice-secret") && !text.contains(partition))
        }
    }

    @Test("An API key header partitions too, and the key is hashed, not kept")
    func partitionByAPIKey() async throws {
        let harness = CacheHarness { request, _ in
            .response(
                status: 200,
                headers: ["Cache-Control": "max-age=60", "Content-Type": "application/json"],
                body: Data(#"[{"id": 1, "name": "\#(request.headers["X-API-Key"] ?? "")"}]"#.utf8)
            )
        }
        _ = try await harness.client.response(for: .partnerItems, using: APIKey(value: "key-one"))
        let other = try await harness.client.exchange(for: .partnerItems, using: APIKey(value: "key-two"))
        #expect(other.source == .network)
        #expect(other.value.first?.name == "key-two")
        let key = try #require(harness.storage.keys.first)
        #expect(!key.partition.contains("key-one") && key.partition.count == 32)
    }

    @Test("§4.4: a successful POST invalidates its URL and a same-origin Location; a failed one does not")
    func invalidation() async throws {
        let harness = CacheHarness { request, _ in
            switch (request.method, request.url.path) {
            case (.post, "/v1/items/1"):
                return .response(status: 204, headers: ["Location": "/v1/items/2"])
            case (.post, "/v1/items/3"):
                return .response(status: 500)
            case (.post, _):
                return .response(status: 201, headers: ["Location": "https://elsewhere.test/v1/items/5"])
            default:
                return .item(1, request.url.lastPathComponent, headers: ["Cache-Control": "max-age=600"])
            }
        }
        for id in [1, 2, 3, 5] { _ = try await harness.client.response(for: .item(id)) }
        let post = { (id: Int) in Endpoint<EndpointKinds.Public, EmptyResponse>(method: .post, path: "items/\(id)") }
        _ = try await harness.client.response(for: post(1))
        _ = try? await harness.client.response(for: post(3))

        #expect(try await harness.client.exchange(for: .item(1)).source == .network)
        #expect(try await harness.client.exchange(for: .item(2)).source == .network)
        #expect(try await harness.client.exchange(for: .item(3)).source == .cache)
        #expect(try await harness.client.exchange(for: .item(5)).source == .cache)
    }

    @Test("RFC 5861: stale-while-revalidate serves the stale value at once and revalidates once in the background")
    func staleWhileRevalidate() async throws {
        let revalidationArrived = Gate()
        let release = Gate()
        let harness = CacheHarness { _, number in
            if number == 2 {
                revalidationArrived.open()
                await release.wait()
            }
            return .item(
                1,
                number == 1 ? "old" : "new",
                headers: [
                    "Cache-Control": "max-age=10, stale-while-revalidate=60"
                ]
            )
        }
        var stores = harness.stores.makeAsyncIterator()
        _ = try await harness.client.response(for: .item(1))
        await stores.next()
        harness.wall.advance(20)
        let stale = try await harness.client.exchange(for: .item(1))
        await revalidationArrived.wait()
        // While the one revalidation is held, more calls get the stale value and start no other.
        let again = try await harness.client.exchange(for: .item(1))
        #expect(stale.source == .cache && again.source == .cache)
        #expect(stale.value.name == "old" && again.value.name == "old")
        #expect(await harness.sent == 2)

        release.open()
        await stores.next()
        let fresh = try await harness.client.exchange(for: .item(1))
        #expect(fresh.value.name == "new")
        #expect(fresh.source == .cache)
        #expect(await harness.sent == 2)
    }

    @Test("RFC 5861: stale-if-error serves the stored value for a 503 and for a lost connection, within its window")
    func staleIfError() async throws {
        let harness = CacheHarness { _, number in
            switch number {
            case 1: .item(1, "tea", headers: ["Cache-Control": "max-age=10, stale-if-error=100"])
            case 2: .status(503)
            default: .connectionLost()
            }
        }
        _ = try await harness.client.response(for: .item(1))
        harness.wall.advance(50)
        #expect(try await harness.client.exchange(for: .item(1)).source == .cache)
        #expect(try await harness.client.exchange(for: .item(1)).source == .cache)
        harness.wall.advance(100)
        await #expect(throws: EndpointError.self) { try await harness.client.response(for: .item(1)) }
    }

    @Test("RFC 8246: a fresh immutable response is served even to a reload's max-age=0")
    func immutable() async throws {
        let harness = CacheHarness { _, _ in .item(1, "tea", headers: ["Cache-Control": "max-age=600, immutable"]) }
        _ = try await harness.client.response(for: .item(1))
        var reload = Endpoint<EndpointKinds.Public, Item>.item(1)
        reload.options.cacheDirectives.maxAge = .zero
        #expect(try await harness.client.exchange(for: reload).source == .cache)
        #expect(await harness.sent == 1)
    }

    @Test("Never stored: a streamed body, a response past the per-entry cap, and an endpoint that opts out")
    func neverStored() async throws {
        let storage = MemoryCacheStorage(maximumSize: 1 << 20, maximumEntrySize: 1024)
        let harness = CacheHarness(storage: storage) { request, _ in
            let size = request.url.lastPathComponent == "big" ? 2048 : 10
            return .response(
                status: 200,
                headers: ["Cache-Control": "max-age=60"],
                body: Data(repeating: 0x61, count: size)
            )
        }
        let big = Endpoint<EndpointKinds.Public, Data>(path: "big")
        _ = try await harness.client.response(for: big)
        #expect(try await harness.client.exchange(for: big).source == .network)

        var optOut = Endpoint<EndpointKinds.Public, Data>(path: "small")
        optOut.options.isCached = false
        _ = try await harness.client.response(for: optOut)
        #expect(try await harness.client.exchange(for: optOut).source == .network)

        let streamed = try await harness.client.stream(for: Endpoint<EndpointKinds.Public, Data>(path: "streamed"))
        for try await _ in streamed.body {}
        #expect(storage.count == 0)
        #expect(await harness.sent == 5)
    }

    @Test("A request with conditions of its own is left to the caller: no stored value, no added validators")
    func callersConditions() async throws {
        let harness = CacheHarness { _, number in
            number == 1
                ? .item(1, "tea", headers: ["ETag": "\"1\""])
                : .response(status: 304, headers: ["ETag": "\"1\""])
        }
        _ = try await harness.client.response(for: .item(1))
        var raw = Endpoint<EndpointKinds.Public, Item>.item(1).decoding(as: Data.self)
        raw.headers[.ifNoneMatch] = "\"mine\""
        raw.options.isValidated = false
        let response = try await harness.client.exchange(for: raw)
        #expect(response.statusCode == 304)
        #expect(await harness.last?.headers[.ifNoneMatch] == "\"mine\"")
    }

    @Test("A client made with cache: nil sends every request")
    func noCache() async throws {
        let transport = StubTransport { _ in .item(1, "tea", headers: ["Cache-Control": "max-age=60"]) }
        let client = EndpointClient(environment: Fixture.environment, transport: transport, cache: nil)
        _ = try await client.response(for: .item(1))
        #expect(try await client.exchange(for: .item(1)).source == .network)
        #expect(await transport.transportRequests.count == 2)
    }
}
