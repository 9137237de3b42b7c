import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

private struct Feed: Codable, Sendable {
    var items: [Item]
    var next: String?
}

/// A stub server of 3 pages of 2 items, linked by `Link`, cursor, page number or offset.
private func pagedServer(
    link: @escaping @Sendable (Int) -> String? = { page in
        page < 3 ? #"</v1/items?page=\#(page + 1)>; rel="next""# : nil
    }
) -> StubTransport {
    StubTransport { request in
        let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        func number(_ name: String) -> Int? { query.first { $0.name == name }?.value.flatMap { Int($0) } }
        let page =
            number("page") ?? number("offset").map { $0 / 2 + 1 }
            ?? query.first { $0.name == "after" }?.value.flatMap { Int($0.dropFirst()) } ?? 1
        let items = page <= 3 ? [(page - 1) * 2 + 1, (page - 1) * 2 + 2].map { Item(id: $0, name: "item \($0)") } : []
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        if let link = link(page) { headers[.link] = link }
        let body = try JSONEncoder().encode(Feed(items: items, next: page < 3 ? "c\(page + 1)" : nil))
        return .response(status: 200, headers: headers, body: body)
    }
}

/// Keeps the page walk of every call it passes on.
private struct WalkRecorder: Middleware {
    let walks = Locked([PageWalk]())

    func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext) async throws
        -> TransportResponse
    {
        if let walk = context.options.pageWalk { walks.withLock { $0.append(walk) } }
        return try await next(request, context: context)
    }
}

@Suite(.timeLimit(.minutes(1))) struct PagesTests {
    fileprivate let feed = Endpoint<EndpointKinds.Public, Feed>(path: "items")

    @Test("Lazy: nothing is sent until iteration starts, and a page only when the loop asks for it")
    func lazy() async throws {
        let transport = pagedServer()
        let client = EndpointClient(environment: Fixture.environment, transport: transport, cache: nil)
        let pages = client.pages(for: feed, next: .link)
        #expect(await transport.transportRequests.isEmpty)
        var iterator = pages.makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first?.value.items.map(\.id) == [1, 2])
        #expect(await transport.transportRequests.count == 1)
    }

    @Test(
        "Every rule walks the same three pages and stops at the end",
        arguments: ["link", "cursor", "page", "offset"]
    )
    func rules(_ rule: String) async throws {
        let client = EndpointClient(environment: Fixture.environment, transport: pagedServer(), cache: nil)
        let next: NextPage<EndpointKinds.Public, Feed> =
            switch rule {
            case "link": .link
            case "cursor": .cursor(parameter: "after") { $0.next }
            case "page": .pageNumber(parameter: "page") { $0.value.items.isEmpty }
            default: .offset(parameter: "offset") { $0.items.count }
            }
        var ids: [Int] = []
        for try await page in client.pages(for: feed, next: next) { ids += page.value.items.map(\.id) }
        #expect(ids == [1, 2, 3, 4, 5, 6])
    }

    @Test("Elements: every page's items in order, a page fetched only when its first item is reached")
    func elements() async throws {
        let transport = pagedServer()
        let list = Endpoint<EndpointKinds.Public, [Item]>(path: "items")
        let linked = StubTransport { request in
            let reply = try await transport.send(request, options: TransportOptions())
            let feed = try JSONDecoder().decode(Feed.self, from: reply.bufferedBody)
            return .response(status: 200, headers: reply.headers, body: try JSONEncoder().encode(feed.items))
        }
        let listClient = EndpointClient(environment: Fixture.environment, transport: linked, cache: nil)
        var seen: [Int] = []
        for try await item in listClient.pages(for: list, next: .link).elements {
            seen.append(item.id)
            if item.id == 3 { #expect(await linked.transportRequests.count == 2) }
        }
        #expect(seen == [1, 2, 3, 4, 5, 6])
    }

    @Test("A custom rule from the response to the next endpoint")
    func custom() async throws {
        let client = EndpointClient(environment: Fixture.environment, transport: pagedServer(), cache: nil)
        let next = NextPage<EndpointKinds.Public, Feed> { page, endpoint in
            page.value.next == nil ? nil : endpoint.settingQueryItem("page", to: "3")
        }
        var ids: [Int] = []
        for try await page in client.pages(for: feed, next: next) { ids += page.value.items.map(\.id) }
        #expect(ids == [1, 2, 5, 6])
    }

    @Test("A page whose next link is empty (<>, the page itself) ends the pages with paginationLoop")
    func emptyNextLink() async throws {
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: pagedServer { _ in "<>; rel=next" },
            cache: nil
        )
        var pages = 0
        let error = await #expect(throws: EndpointError.self) {
            for try await _ in client.pages(for: feed, next: .link) { pages += 1 }
        }
        #expect(error?.kind == .paginationLoop)
        #expect(pages == 1)
    }

    @Test("A next link seen before ends the pages with paginationLoop, after the pages before it")
    func loop() async throws {
        let client = EndpointClient(
            environment: Fixture.environment,
            // Page 2 names itself as the next page.
            transport: pagedServer { _ in "</v1/items?page=2>; rel=next" },
            cache: nil
        )
        var pages = 0
        let error = await #expect(throws: EndpointError.self) {
            for try await _ in client.pages(for: feed, next: .link) { pages += 1 }
        }
        #expect(error?.kind == .paginationLoop)
        #expect(pages == 2)
    }

    @Test("Every page carries the token; a next page at another origin goes without it")
    func credentials() async throws {
        let transport = StubTransport { request in
            let next: HTTPHeaders =
                request.url.host == "api.test"
                ? ["Link": "<https://cdn.other.test/items?page=2>; rel=next", "Content-Type": "application/json"]
                : ["Content-Type": "application/json"]
            return .response(status: 200, headers: next, body: Data(#"{"items": []}"#.utf8))
        }
        let client = EndpointClient(environment: Fixture.environment, transport: transport, cache: nil)
        let search = Endpoint<EndpointKinds.Private, SearchResults>.search(for: "tea")
        for try await _ in client.pages(for: search, using: AccessToken("s3cret"), next: .link) {}
        let sent = await transport.transportRequests
        #expect(sent.count == 2)
        #expect(sent[0].headers[.authorization] == "Bearer s3cret")
        #expect(sent[1].url.host == "cdn.other.test")
        #expect(sent[1].headers[.authorization] == nil)
    }

    @Test("Cancelling the task stops the page in flight, and no page after it is sent")
    func cancellation() async throws {
        let secondArrived = Gate()
        let never = Gate()
        let inner = pagedServer()
        let transport = StubTransport { request in
            if request.url.query?.contains("page=2") == true {
                secondArrived.open()
                await never.wait()
            }
            return try await .response(inner.send(request, options: TransportOptions()))
        }
        let client = EndpointClient(environment: Fixture.environment, transport: transport, cache: nil)
        let walk = Task {
            var count = 0
            for try await _ in client.pages(for: feed, next: .link) { count += 1 }
            return count
        }
        await secondArrived.wait()
        walk.cancel()
        let error = await #expect(throws: EndpointError.self) { try await walk.value }
        #expect(error?.kind == .cancelled)
        #expect(await transport.transportRequests.count == 2)
    }

    @Test("A failed page ends the pages with its error; the sequence does not go on")
    func failure() async throws {
        let transport = StubTransport(replies: [
            .response(
                status: 200,
                headers: ["Link": "</v1/items?page=2>; rel=next"],
                body: Data(#"{"items": []}"#.utf8)
            ),
            .status(500),
        ])
        let client = EndpointClient(environment: Fixture.environment, transport: transport, cache: nil)
        var iterator = client.pages(for: feed, next: .link).makeAsyncIterator()
        _ = try await iterator.next()
        await #expect(throws: EndpointError.self) { try await iterator.next() }
        #expect(try await iterator.next() == nil)
    }

    @Test("A rule that throws on page 2 still returns page 2, then throws an error that names its URL")
    func ruleErrorKeepsPage() async throws {
        struct NoCursor: Error {}
        let client = EndpointClient(environment: Fixture.environment, transport: pagedServer(), cache: nil)
        let next = NextPage<EndpointKinds.Public, Feed> { page, endpoint in
            guard page.value.items.first?.id == 1 else { throw NoCursor() }
            return endpoint.settingQueryItem("page", to: "2")
        }
        var iterator = client.pages(for: feed, next: next).makeAsyncIterator()

        let first = try await iterator.next()
        let second = try await iterator.next()
        let error = try await #require(throws: EndpointError.self) { try await iterator.next() }

        #expect(first?.value.items.map(\.id) == [1, 2])
        #expect(second?.value.items.map(\.id) == [3, 4])
        #expect(error.request?.redactedURL == "https://api.test/v1/items?page=2")
        #expect(try await iterator.next() == nil)
    }

    @Test("A rel=\"next\" that is not a URL is an error naming the link, after the page that carried it")
    func unparseableNextLink() async throws {
        let transport = pagedServer { page in page == 1 ? #"<http://[bad>; rel="next""# : nil }
        let client = EndpointClient(environment: Fixture.environment, transport: transport, cache: nil)
        var iterator = client.pages(for: feed, next: .link).makeAsyncIterator()

        let first = try await iterator.next()
        let error = try await #require(throws: EndpointError.self) { try await iterator.next() }

        #expect(first?.value.items.map(\.id) == [1, 2])
        #expect(error.kind == .decodingFailed)
        #expect(error.description.contains("http://[bad"))
    }

    @Test("A next link anchored at another resource is not this page's next (RFC 8288 §3.2)")
    func anchoredLinkIsNotNext() async throws {
        let transport = pagedServer { page in
            page == 1
                ? #"</v1/items?page=9>; rel="next"; anchor="/v1/other", </v1/items?page=2>; rel="next""# : nil
        }
        let client = EndpointClient(environment: Fixture.environment, transport: transport, cache: nil)

        var ids: [Int] = []
        for try await page in client.pages(for: feed, next: .link) { ids += page.value.items.map(\.id) }

        #expect(ids == [1, 2, 3, 4])
        #expect(await transport.transportRequests.map { $0.url.query ?? "" } == ["", "page=2"])
    }

    @Test("Each page's call carries its walk: its number, the first page's route, and what instruments keep for it")
    func pageWalk() async throws {
        let recorder = WalkRecorder()
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: pagedServer { page in page < 3 ? "<https://api.test/v1/items?page=\(page + 1)>; rel=next" : nil
            },
            middleware: [recorder],
            cache: nil
        )

        for try await _ in client.pages(for: feed, next: .link) {}
        for try await _ in client.pages(for: feed, next: .link) {}

        let walks = recorder.walks.withLock { $0 }
        #expect(walks.map(\.page) == [1, 2, 3, 1, 2, 3])
        #expect(walks.allSatisfy { $0.template == "/v1/items" })
        #expect(walks[0].keepContext("first walk") == "first walk")
        #expect(walks[2].context(as: String.self) == "first walk" && walks[3].context(as: String.self) == nil)
        #expect(try await client.response(for: feed).items.count == 2 && recorder.walks.withLock { $0.count } == 6)
    }
}
