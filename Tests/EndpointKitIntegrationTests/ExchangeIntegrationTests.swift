import EndpointKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

private struct GetEcho: Decodable {
    var url: String
}

@Suite(.timeLimit(.minutes(1)))
struct ExchangeIntegrationTests {
    @Test("exchange(for:) returns a page with its Link header, as a paginated API sends it")
    func linkHeader() async throws {
        let link = "<https://api.example.com/items?page=2>; rel=\"next\""
        let client = try TestServers.httpbinClient()

        let response = try await client.exchange(
            for: Endpoint<EndpointKinds.Public, [String: String]>(
                path: "response-headers",
                queryItems: [URLQueryItem(name: "Link", value: link)]
            )
        )

        #expect(response.statusCode == 200)
        #expect(response.headers["Link"] == link)
        #expect(response.value["Link"] == link)
        #expect(response.attempts == 1)
        #expect(response.timeToFirstByte > .zero && response.timeToFirstByte <= response.duration)
    }

    @Test("After redirects, exchange(for:) reports the URL that answered")
    func finalURL() async throws {
        let client = try TestServers.httpbinClient()

        let response = try await client.exchange(for: Endpoint<EndpointKinds.Public, GetEcho>(path: "redirect/2"))

        #expect(response.url?.path == "/get")
        #expect(response.value.url.hasSuffix("/get"))
    }
}
