import EndpointKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every error names the request and the hop that failed, and says which setting ran out and how long it was.
@Suite(.timeLimit(.minutes(1)))
struct ErrorContextIntegrationTests {
    @Test("A 403 from another origin behind a 302 names the API request and, as its hop, the URL that answered")
    func failingHopIsNamed() async throws {
        let fault = try TestServers.fault()
        let key = UUID().uuidString
        let forbidden = RawResponse.endpoint(key, "HTTP/1.1 403 Forbidden\r\nContent-Length: 6\r\n\r\ndenied")
        let target = try #require(try forbidden.makeRequest(in: ServerEnvironment(baseURL: fault), with: ()).url)
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.httpbin()))
        let redirect = Endpoint<EndpointKinds.Public, Data>(
            path: "redirect-to",
            queryItems: [URLQueryItem(name: "url", value: target.absoluteString)]
        )

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: redirect) }

        #expect(error.statusCode == 403)
        #expect(error.request?.redactedURL.contains("/redirect-to?") == true)
        #expect(error.hop?.redactedURL.contains("/raw/\(key)") == true)
        #expect(error.description.contains("at hop GET \(fault.absoluteString)/raw/\(key)"))
    }

    @Test("A timeout of 1 s with no answer names the setting and the figure, rounded with its unit")
    func timeoutNamesItsSetting() async throws {
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        var held = Endpoint<EndpointKinds.Public, Data>(path: "hold/\(UUID().uuidString)")
        held.timeout = .seconds(1)

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: held) }

        #expect(error.kind == .timedOut)
        // The deadline or URLSession's timer standing for it, whichever fires first: both name the deadline.
        #expect(error.message.contains("1 s") && error.message.contains("(timeout)"), "\(error.message)")
        #expect(error.message.contains("deadline") && !error.message.contains("idle"), "\(error.message)")
        #expect(error.request != nil)
    }
}
