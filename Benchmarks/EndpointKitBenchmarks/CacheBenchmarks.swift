import EndpointKit
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// What the HTTP cache saves and costs:
//   cache-walk FAULT_URL [PAGES]       a repeated walk of a GitHub-style paged list: requests sent conditional,
//                                      body bytes saved, requests a rate limit would count
//   cache-hit NGINX_URL [PAIRS]        a fresh hit as a share of a loopback request, interleaved pairs
//   cache-memory NGINX_URL [COUNT]     COUNT responses of 64 KiB through a 16 MiB cache: what it holds, and RSS

private struct Tally: Decodable, Sendable { var count: Int }
private struct PageItem: Decodable, Sendable {
    var id: Int
    var title: String
}

/// Counts the requests that went out conditional, from the records observers get.
private final class ConditionalCounter: ExchangeObserver, @unchecked Sendable {
    // Safe because every access to `sent` and `conditional` holds `counts`.
    private let counts = NSLock()
    private var sent = 0
    private var conditional = 0

    func observe(_ event: ExchangeEvent) {
        guard case .exchangeCompleted(let record) = event, record.source != .cache else { return }
        counts.lock()
        sent += 1
        if record.requestHeaders[.ifNoneMatch] != nil || record.requestHeaders[.ifModifiedSince] != nil {
            conditional += 1
        }
        counts.unlock()
    }

    /// Requests sent and how many of them were conditional, since the last call.
    func take() -> (sent: Int, conditional: Int) {
        counts.lock()
        defer {
            sent = 0
            conditional = 0
            counts.unlock()
        }
        return (sent, conditional)
    }
}

func cacheWalk(faultURL: URL, pages: Int) async throws {
    let key = UUID().uuidString
    let counter = ConditionalCounter()
    let client = EndpointClient(environment: ServerEnvironment(baseURL: faultURL), observers: [counter])
    // GitHub's answer to a page (`private, max-age=60`) would make a walk within the minute free; `max-age=0`
    // makes every page of the second walk ask, the case that costs something.
    let first = Endpoint<EndpointKinds.Private, [PageItem]>(
        path: "pages/\(key)",
        queryItems: [
            URLQueryItem(name: "per_page", value: "30"), URLQueryItem(name: "total", value: String(pages * 30)),
            URLQueryItem(name: "cc", value: "private, max-age=0"),
        ]
    )
    func count(_ name: String) async throws -> Int {
        var endpoint = Endpoint<EndpointKinds.Public, Tally>(path: "count/\(name)/\(key)")
        endpoint.options.isCached = false
        return try await client.response(for: endpoint).count
    }
    print("cache-walk: \(pages) pages of 30 items (GitHub-style: Link, ETag, Vary), walked twice with one token")
    var previous = (ok: 0, notModified: 0, bytes: 0)
    var firstBytes = 0
    for walk in 1...2 {
        var items = 0
        for try await page in client.pages(for: first, using: AccessToken("bench-token"), next: .link) {
            items += page.value.count
        }
        let (sent, conditional) = counter.take()
        let now = (
            ok: try await count("pages-200"), notModified: try await count("pages-304"),
            bytes: try await count("pages-bytes")
        )
        _ = counter.take()  // the counting requests themselves
        let ok = now.ok - previous.ok
        let notModified = now.notModified - previous.notModified
        let bytes = now.bytes - previous.bytes
        if walk == 1 { firstBytes = bytes }
        previous = now
        let share = sent == 0 ? 0 : Double(conditional) / Double(sent) * 100
        var line = "  walk \(walk): \(items) items, \(sent) GETs, \(conditional) conditional"
        line += String(format: " (%.0f %%)", share)
        line += ", \(ok) × 200, \(notModified) × 304, \(bytes) B of bodies"
        if walk == 2 {
            let saved = firstBytes == 0 ? 0 : (1 - Double(bytes) / Double(firstBytes)) * 100
            line += String(format: " (%.1f %% saved)", saved)
            line += "; requests a rate limit counts (200s): \(ok)"
        }
        print(line)
    }
}

func cacheHit(nginxURL: URL, pairs: Int) async throws {
    let client = EndpointClient(environment: ServerEnvironment(baseURL: nginxURL), envelope: .networkResponse)
    var stale = Endpoint<EndpointKinds.Public, BenchUser>(path: "user-1k.json")
    // nginx's file has a validator but no freshness: accept it stale, so that every call after the first is a hit.
    stale.options.cacheDirectives.maxStale = .seconds(86_400)
    let endpoint = stale
    _ = try await client.response(for: endpoint)
    guard try await client.exchange(for: endpoint).source == .cache else {
        print("cache-hit: the second call was not served from the cache")
        exit(1)
    }
    let delegate = CollectingDelegate()
    let session = URLSession(
        configuration: URLSessionTransport.defaultConfiguration(),
        delegate: delegate,
        delegateQueue: nil
    )
    let url = nginxURL.appendingPathComponent("user-1k.json")
    let decoder = JSONDecoder()
    let hits = 2_000
    let requests = 200
    var ratios: [Double] = []
    for pair in 0..<pairs {
        func hitSide() async throws -> Double {
            try await measure(count: hits, concurrency: 1) { _ = try await client.response(for: endpoint) }.wall
                / Double(hits)
        }
        func requestSide() async throws -> Double {
            try await measure(count: requests, concurrency: 1) {
                var request = URLRequest(url: url)
                request.setValue("application/json", forHTTPHeaderField: "Accept")
                let (data, _) = try await delegate.data(for: request, in: session)
                _ = try decoder.decode(Envelope<BenchUser>.self, from: data)
            }.wall / Double(requests)
        }
        // Interleaved, alternating which side goes first.
        var hit = 0.0
        var request = 0.0
        if pair % 2 == 0 {
            hit = try await hitSide()
            request = try await requestSide()
        } else {
            request = try await requestSide()
            hit = try await hitSide()
        }
        ratios.append(hit / request)
    }
    let sorted = ratios.sorted()
    print(
        String(
            format: "cache-hit: a fresh hit (decoded 1 KB) / a loopback request (raw URLSession, decoded): median %.3f"
                + " [%.3f–%.3f] over %d pairs",
            median(ratios),
            sorted.first ?? 0,
            sorted.last ?? 0,
            pairs
        )
    )
}

func cacheMemory(nginxURL: URL, count: Int) async throws {
    let bound = 16 << 20
    let storage = MemoryCacheStorage(maximumSize: bound, maximumEntrySize: 1 << 20)
    let cached = EndpointClient(environment: ServerEnvironment(baseURL: nginxURL), cache: HTTPCache(storage: storage))
    let uncached = EndpointClient(environment: ServerEnvironment(baseURL: nginxURL), cache: nil)
    func fetch(_ client: EndpointClient, round: String) async throws {
        for index in 0..<count {
            let endpoint = Endpoint<EndpointKinds.Public, Data>(
                path: "random-64k.bin",
                queryItems: [URLQueryItem(name: "\(round)", value: String(index))]
            )
            _ = try await client.response(for: endpoint)
        }
    }
    // The same calls without a cache first, so that what URLSession and the allocator keep is in the baseline.
    try await fetch(uncached, round: "warm")
    let before = currentResidentKilobytes()
    try await fetch(cached, round: "cached")
    let after = currentResidentKilobytes()
    print(
        "cache-memory: \(count) × 64 KiB through a cache bounded to \(bound >> 20) MiB: \(storage.count) entries,"
            + String(format: " %.2f MiB held;", Double(storage.currentSize) / 1_048_576)
            + String(
                format: " resident memory %+.1f MiB over the same calls without a cache",
                Double(after - before) / 1024
            )
    )
}
