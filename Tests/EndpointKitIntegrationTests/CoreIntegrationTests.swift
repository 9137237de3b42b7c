import EndpointKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(1)))
struct CoreIntegrationTests {
    @Test("A public GET is answered and decoded")
    func publicGet() async throws {
        let client = try TestServers.httpbinClient()

        let echo = try await client.response(for: .get(queryItems: [URLQueryItem(name: "page", value: "2")]))

        #expect(echo.args == ["page": "2"])
        #expect(echo.headers["User-Agent"] == "EndpointKit/\(RequestDefaults.libraryVersion)")
        #expect(echo.headers["Accept"] == "application/json")
    }

    @Test("The session adds EndpointKit's User-Agent; a client's own replaces it, and an endpoint's wins over both")
    func userAgentPrecedence() async throws {
        var defaults = RequestDefaults()
        defaults.headers[.userAgent] = "MyApp/1.0"
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.httpbin()),
            defaults: defaults
        )
        var endpoint = Endpoint<EndpointKinds.Public, Echo>.get()
        let fromDefaults = try await client.response(for: endpoint)
        endpoint.headers[.userAgent] = "MyApp/1.0 (ios)"
        let fromEndpoint = try await client.response(for: endpoint)

        #expect(fromDefaults.headers["User-Agent"] == "MyApp/1.0")
        #expect(fromEndpoint.headers["User-Agent"] == "MyApp/1.0 (ios)")
    }

    @Test("A private call is accepted by httpbin's bearer endpoint")
    func privateAccepted() async throws {
        let client = try TestServers.httpbinClient()

        let result = try await client.response(for: .bearer, using: AccessToken("s3cr3t"))

        #expect(result.authenticated)
        #expect(result.token == "s3cr3t")
    }

    @Test("Without the header the bearer endpoint answers 401, surfaced as a typed error")
    func privateRejected() async throws {
        let client = try TestServers.httpbinClient()

        let error = try await #require(throws: EndpointError.self) {
            try await client.response(for: .bearerWithoutToken)
        }

        #expect(error.kind == .unacceptableStatus)
        #expect(error.statusCode == 401)
        #expect(error.request?.description == "GET \(try TestServers.httpbin().absoluteString)/bearer")
    }

    @Test("nginx resolves an encoded dot-segment, so EndpointKit refuses one instead of encoding it")
    func dotSegmentsAreRefused() async throws {
        let nginx = try TestServers.nginx()
        let raw = try #require(URL(string: nginx.absoluteString + "/items/%2E%2E/item.json"))
        let client = EndpointClient(environment: ServerEnvironment(baseURL: nginx))
        let hostile = Endpoint<EndpointKinds.Public, Data>(path: "items/\("..")/item.json")

        let (leaked, response) = try await URLSession(configuration: .ephemeral).data(from: raw)
        let error = try await #require(throws: EndpointError.self) { try await client.response(for: hostile) }

        #expect((response as? HTTPURLResponse)?.statusCode == 200, "nginx served /item.json through /items/%2E%2E")
        #expect(String(decoding: leaked, as: UTF8.self).contains("static"))
        #expect(error.kind == .invalidRequest)
        #expect(error.attempts == nil)
    }

    @Test(
        "Hostile path segments and query values reach the server exactly as encoded",
        arguments: [
            ("x/admin", "x%2Fadmin", "a+b", "a%2Bb"),
            ("a/b?x=1#f", "a%2Fb%3Fx=1%23f", "x&y=z", "x%26y%3Dz"),
            ("...", "...", "#", "%23"),
            ("100%", "100%25", "über", "%C3%BCber"),
            ("a b", "a%20b", "1 + 1 = 2", "1%20%2B%201%20%3D%202"),
        ]
    )
    func exactPathAndQuery(segment: String, encodedSegment: String, value: String, encodedValue: String)
        async throws
    {
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.echo()))
        let endpoint = Endpoint<EndpointKinds.Public, EmptyResponse>(
            path: "v1/items/\(segment)/detail",
            queryItems: [URLQueryItem(name: "q", value: value)]
        )

        let response = try await client.rawResponse(for: endpoint, using: ())

        let line = String(decoding: response.bytes, as: UTF8.self)
        #expect(line == "GET /v1/items/\(encodedSegment)/detail?q=\(encodedValue)")
    }

    @Test(
        "Query values round-trip through httpbin unchanged",
        arguments: ["a+b", "x&y=z", "#frag", "über ünïcode", "1 + 1 = 2", "a;b/c?d", "%41", ""]
    )
    func queryRoundTrip(value: String) async throws {
        let client = try TestServers.httpbinClient()

        let echo = try await client.response(for: .get(queryItems: [URLQueryItem(name: "q", value: value)]))

        #expect(echo.args?["q"] == value)
    }

    @Test("An enveloped payload from a real server is unwrapped")
    func envelopedPayload() async throws {
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.nginx()),
            envelope: .networkResponse
        )

        let item = try await client.response(for: Endpoint<EndpointKinds.Public, Item>(path: "item.json"))

        #expect(item == Item(id: 7, name: "static"))
    }

    @Test("A custom envelope key unwraps httpbin's echoed JSON body")
    func customEnvelopeKey() async throws {
        let client = try TestServers.httpbinClient(envelope: .networkResponse(key: "json"))
        let endpoint = Endpoint<EndpointKinds.Public, Item>(
            method: .post,
            path: "anything",
            body: JSONBody(Item(id: 5, name: "echoed"))
        )

        let item = try await client.response(for: endpoint)

        #expect(item == Item(id: 5, name: "echoed"))
    }

    @Test("A 204 decodes to EmptyResponse")
    func noContent() async throws {
        let client = try TestServers.httpbinClient()

        let response = try await client.response(for: .status(204))

        #expect(response == EmptyResponse())
    }

    @Test("Status errors carry the status", arguments: [400, 404, 418, 500, 503])
    func statusErrors(code: Int) async throws {
        let client = try TestServers.httpbinClient()

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: .status(code)) }

        #expect(error.kind == .unacceptableStatus)
        #expect(error.statusCode == code)
    }

    @Test("A body that is not the expected JSON is a decodingFailed error with a snippet")
    func htmlIsNotJSON() async throws {
        let client = try TestServers.httpbinClient()

        let error = try await #require(throws: EndpointError.self) {
            try await client.response(for: Endpoint<EndpointKinds.Public, Item>(path: "html"))
        }

        #expect(error.kind == .decodingFailed)
        #expect(error.bodySnippet?.contains("<html>") == true)
    }

    @Test("A publisher iterated twice makes two requests")
    func publisherTwice() async throws {
        let client = try TestServers.httpbinClient()
        let publisher = client.publisher(for: .uuid)

        var uuids: [String] = []
        for try await value in publisher { uuids.append(value.uuid) }
        for try await value in publisher { uuids.append(value.uuid) }

        #expect(uuids.count == 2)
        #expect(Set(uuids).count == 2)
    }

    @Test("Cancelling a slow request returns promptly with a cancelled error")
    func cancelSlowRequest() async throws {
        // The fault server holds the request unanswered; its count of arrivals is the signal that the request is
        // in flight, so the time measured is the cancellation's alone, whatever else the machine is doing.
        let key = UUID().uuidString
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        let held = Endpoint<EndpointKinds.Public, Data>(path: "hold/\(key)")
        let task = Task { try await client.response(for: held) }
        _ = try await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "await/hold/\(key)"))
        let clock = ContinuousClock()
        let start = clock.now
        task.cancel()
        let result = await task.result

        let error = try #require(throws: EndpointError.self) { try result.get() }
        #expect(error.kind == .cancelled)
        // The server holds the request 60 s; half of that leaves room for a machine as slow as CI's.
        #expect(clock.now - start < .seconds(30), "the request was not cancelled; it waited for the server")
    }

    @Test("A refused connection is a transportFailed error")
    func connectionRefused() async throws {
        let socket = try #require(URL(string: "http://127.0.0.1:9"))
        let client = EndpointClient(environment: ServerEnvironment(baseURL: socket))

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: .uuid) }

        #expect(error.kind == .transportFailed)
        #expect(error.underlyingError is URLError)
    }

    @Test("A body larger than the call's limit is stopped with responseTooLarge; one at the limit arrives whole")
    func responseSizeLimit() async throws {
        let environment = ServerEnvironment(baseURL: try TestServers.nginx())
        let endpoint = Endpoint<EndpointKinds.Public, EmptyResponse>(path: "random-64k.bin")
        var smallDefaults = RequestDefaults()
        smallDefaults.maximumResponseSize = 1_000
        var exactDefaults = RequestDefaults()
        exactDefaults.maximumResponseSize = 65_536
        let small = EndpointClient(environment: environment, defaults: smallDefaults)
        let exact = EndpointClient(environment: environment, defaults: exactDefaults)

        let error = try await #require(throws: EndpointError.self) {
            try await small.rawResponse(for: endpoint, using: ())
        }
        let whole = try await exact.rawResponse(for: endpoint, using: ())

        #expect(error.kind == .responseTooLarge)
        #expect(whole.bytes.count == 65_536)
    }

    @Test("Cookies a server sets are not stored or sent back")
    func noCookieJar() async throws {
        let client = try TestServers.httpbinClient()
        struct Cookies: Decodable, Sendable { var cookies: [String: String] }

        _ = try await client.rawResponse(
            for: Endpoint<EndpointKinds.Public, EmptyResponse>(
                path: "cookies/set",
                queryItems: [URLQueryItem(name: "session", value: "leak")]
            ),
            using: ()
        )
        let cookies = try await client.response(for: Endpoint<EndpointKinds.Public, Cookies>(path: "cookies"))

        #expect(cookies.cookies.isEmpty)
    }
}
