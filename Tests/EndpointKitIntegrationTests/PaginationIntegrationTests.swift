import EndpointKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

private struct Issue: Decodable, Sendable, Equatable {
    var id: Int
    var title: String
}

private struct Tally: Decodable { var count: Int }

/// Walking a GitHub-style paged list of 300 items on the fault server, whose `Link` headers name the next page.
@Suite(.timeLimit(.minutes(1))) struct PaginationIntegrationTests {
    let key = UUID().uuidString

    func count(_ name: String, with client: EndpointClient) async throws -> Int {
        var endpoint = Endpoint<EndpointKinds.Public, Tally>(path: "count/\(name)/\(key)")
        endpoint.options.isCached = false
        return try await client.response(for: endpoint).count
    }

    fileprivate func issues(_ query: [URLQueryItem] = []) -> Endpoint<EndpointKinds.Private, [Issue]> {
        Endpoint(path: "pages/\(key)", queryItems: query)
    }

    @Test(
        "Every element of every page, in order, by the Link header; relative and absolute links alike",
        arguments: [false, true]
    )
    func walk(absolute: Bool) async throws {
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        let query = absolute ? [URLQueryItem(name: "absolute", value: "1")] : []
        var ids: [Int] = []
        for try await issue in client.pages(for: issues(query), using: AccessToken("t"), next: .link).elements {
            ids.append(issue.id)
        }
        #expect(ids == Array(1...300))
        #expect(try await count("pages", with: client) == 10)
    }

    @Test("A second walk of unchanged pages is all 304s through the cache: no body sent again, values equal")
    func secondWalkIsConditional() async throws {
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        let query = [URLQueryItem(name: "cc", value: "private, max-age=0")]
        var first: [Issue] = []
        for try await page in client.pages(for: issues(query), using: AccessToken("t"), next: .link) {
            #expect(page.source == .network)
            first += page.value
        }
        var second: [Issue] = []
        for try await page in client.pages(for: issues(query), using: AccessToken("t"), next: .link) {
            #expect(page.source == .revalidated)
            second += page.value
        }
        #expect(second == first)
        #expect(try await count("pages-200", with: client) == 10)
        #expect(try await count("pages-304", with: client) == 10)
    }

    @Test("Breaking out of the loop after the first page sends no other")
    func lazy() async throws {
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        for try await page in client.pages(for: issues(), using: AccessToken("t"), next: .link) {
            #expect(page.value.count == 30)
            break
        }
        #expect(try await count("pages", with: client) == 1)
    }
}
