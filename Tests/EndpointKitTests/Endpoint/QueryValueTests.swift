import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(1))) struct QueryValueTests {
    enum Sort: String, QueryValue { case newest, oldest }

    @Test("Typed query values follow the one documented encoding")
    func documentedEncoding() throws {
        let cursor: String? = nil
        let page: Int? = 3
        let endpoint = Endpoint<EndpointKinds.Public, EmptyResponse>(
            path: "items",
            query: [
                "q": "green tea", "tags": ["a+b", "c&d"], "inStock": true, "archived": false, "after": cursor,
                "page": page, "price": 0.1, "sort": Sort.newest, "limit": UInt8(20), "empty": [String](),
            ]
        )

        let request = try endpoint.makeRequest(in: Fixture.environment, with: ())

        #expect(
            request.url?.query
                == "q=green%20tea&tags=a%2Bb&tags=c%26d&inStock=true&archived=false&page=3&price=0.1&sort=newest&limit=20"
        )
    }

    @Test("UUIDs are sent as their uppercase string")
    func uuid() throws {
        let id = try #require(UUID(uuidString: "e621e1f8-c36c-495a-93fc-0c247a3e6e5f"))

        #expect(id.queryValues == ["E621E1F8-C36C-495A-93FC-0C247A3E6E5F"])
    }

    @Test("A very long value is encoded whole")
    func longValue() throws {
        let value = String(repeating: "ü&", count: 5_000)
        let endpoint = Endpoint<EndpointKinds.Public, EmptyResponse>(path: "x", query: ["v": value])

        let request = try endpoint.makeRequest(in: Fixture.environment, with: ())

        let url = try #require(request.url)
        #expect(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first?.value == value)
    }
}
