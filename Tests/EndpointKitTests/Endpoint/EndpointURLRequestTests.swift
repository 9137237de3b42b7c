import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(1))) struct EndpointURLRequestTests {
    @Test("The base URL's path is kept and the endpoint path appended")
    func basePathJoining() throws {
        let request = try Endpoint.item(42).makeRequest(in: Fixture.environment, with: ())

        #expect(request.url?.absoluteString == "https://api.test/v1/items/42")
        #expect(request.httpMethod == "GET")
    }

    @Test(
        "Base URLs with and without a trailing slash join the same way",
        arguments: ["https://api.test/v1", "https://api.test/v1/", "https://api.test/v1//"]
    )
    func trailingSlash(base: String) throws {
        let environment = ServerEnvironment(baseURL: try #require(URL(string: base)))

        let request = try Endpoint.featuredItems.makeRequest(in: environment, with: ())

        #expect(request.url?.absoluteString == "https://api.test/v1/featured")
    }

    @Test("A base URL without a path sends the endpoint path from the root")
    func rootBase() throws {
        let environment = ServerEnvironment(baseURL: try #require(URL(string: "http://127.0.0.1:8080")))

        let request = try Endpoint.featuredItems.makeRequest(in: environment, with: ())

        #expect(request.url?.absoluteString == "http://127.0.0.1:8080/featured")
    }

    @Test("A hostile ID cannot leave its path segment")
    func hostileID() throws {
        let request = try Endpoint.item(rawID: "x/admin?x=1#f").makeRequest(in: Fixture.environment, with: ())

        #expect(request.url?.absoluteString == "https://api.test/v1/items/x%2Fadmin%3Fx=1%23f")
        #expect(request.url?.query == nil)
        #expect(request.url?.fragment == nil)
    }

    @Test("An ID with a dot-segment is refused before anything is built")
    func dotSegmentID() throws {
        let error = try #require(throws: EndpointError.self) {
            try Endpoint.item(rawID: "../admin").makeRequest(in: Fixture.environment, with: ())
        }

        #expect(error.kind == .invalidRequest)
        #expect(error.message.contains("dot-segment"))
    }

    @Test(
        "Query values are encoded so every character reaches the server as written",
        arguments: [
            ("swift", "q=swift"),
            ("a+b", "q=a%2Bb"),
            ("a b", "q=a%20b"),
            ("x&y=z", "q=x%26y%3Dz"),
            ("#frag", "q=%23frag"),
            ("über", "q=%C3%BCber"),
            ("a;b/c?d", "q=a%3Bb%2Fc%3Fd"),
            ("", "q="),
        ]
    )
    func queryEncoding(value: String, expectedQuery: String) throws {
        let request = try Endpoint.search(for: value).makeRequest(in: Fixture.environment, with: AccessToken("t"))

        let url = try #require(request.url)
        #expect(URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery == expectedQuery)
        #expect(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first?.value == value)
    }

    @Test("Query names are encoded too, and a nil value sends the bare name")
    func queryNames() throws {
        let endpoint = Endpoint<EndpointKinds.Public, EmptyResponse>(
            path: "flags",
            queryItems: [URLQueryItem(name: "a&b", value: "1"), URLQueryItem(name: "verbose", value: nil)]
        )

        let request = try endpoint.makeRequest(in: Fixture.environment, with: ())

        #expect(request.url?.query == "a%26b=1&verbose")
    }

    @Test("Environment query items and headers apply unless the endpoint sets the same name")
    func environmentDefaults() throws {
        let environment = ServerEnvironment(
            baseURL: Fixture.baseURL,
            headers: ["X-Client": "tests", "Accept": "text/plain"],
            queryItems: [URLQueryItem(name: "lang", value: "en"), URLQueryItem(name: "q", value: "default")]
        )
        var endpoint = Endpoint.search(for: "tea")
        endpoint.headers[.accept] = "application/vnd.items+json"

        let request = try endpoint.makeRequest(in: environment, with: AccessToken("t"))

        #expect(request.url?.query == "lang=en&q=tea")
        #expect(request.value(forHTTPHeaderField: "X-Client") == "tests")
        #expect(request.value(forHTTPHeaderField: "Accept") == "application/vnd.items+json")
    }

    @Test("Client defaults send JSON Accept and the library's User-Agent")
    func defaultHeaders() throws {
        let request = try Endpoint.featuredItems.makeRequest(in: Fixture.environment, with: ())

        #expect(request.value(forHTTPHeaderField: "Accept") == "application/json")
        #expect(request.value(forHTTPHeaderField: "User-Agent") == "EndpointKit/\(RequestDefaults.libraryVersion)")
    }

    @Test("A private endpoint sends its token as a Bearer header; a public one sends none")
    func kindsPrepareRequests() throws {
        let privateRequest = try Endpoint.search(for: "tea").makeRequest(
            in: Fixture.environment,
            with: AccessToken("s3cret")
        )
        let publicRequest = try Endpoint.featuredItems.makeRequest(in: Fixture.environment, with: ())

        #expect(privateRequest.value(forHTTPHeaderField: "Authorization") == "Bearer s3cret")
        #expect(publicRequest.value(forHTTPHeaderField: "Authorization") == nil)
        #expect(publicRequest.cachePolicy == .reloadIgnoringLocalCacheData)
    }

    @Test("A user-written kind applies its own request data")
    func customKind() throws {
        let request = try Endpoint.partnerItems.makeRequest(in: Fixture.environment, with: APIKey(value: "k-123"))

        #expect(request.value(forHTTPHeaderField: "X-API-Key") == "k-123")
        #expect(request.url?.path == "/v1/partner/items")
    }

    @Test("A JSON body is encoded with the defaults' encoder and labelled application/json")
    func jsonBody() throws {
        let defaults = RequestDefaults()
        defaults.encoder.dateEncodingStrategy = .iso8601
        defaults.encoder.outputFormatting = .sortedKeys
        let new = NewItem(name: "Tea", createdAt: Date(timeIntervalSince1970: 0))

        let request = try Endpoint.createItem(new).makeRequest(
            in: Fixture.environment,
            with: AccessToken("t"),
            defaults: defaults
        )

        #expect(request.httpMethod == "POST")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        let body = try #require(request.httpBody)
        #expect(String(decoding: body, as: UTF8.self) == #"{"createdAt":"1970-01-01T00:00:00Z","name":"Tea"}"#)
    }

    @Test("A body's own encoder wins over the client's")
    func bodyEncoder() throws {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        struct Payload: Encodable, Sendable { var itemName: String }
        let endpoint = Endpoint<EndpointKinds.Public, EmptyResponse>(
            method: .put,
            path: "x",
            body: JSONBody(Payload(itemName: "a"), encoder: encoder)
        )

        let request = try endpoint.makeRequest(in: Fixture.environment, with: ())

        #expect(request.httpBody.map { String(decoding: $0, as: UTF8.self) } == #"{"item_name":"a"}"#)
    }

    @Test("A GET with a body is refused before sending")
    func getWithBody() throws {
        let endpoint = Endpoint<EndpointKinds.Public, EmptyResponse>(path: "x", body: JSONBody(["a": 1]))

        let error = try #require(throws: EndpointError.self) {
            try endpoint.makeRequest(in: Fixture.environment, with: ())
        }

        #expect(error.kind == .invalidRequest)
        #expect(error.message.contains("GET"))
    }

    @Test("A body that cannot be encoded is an encodingFailed error")
    func unencodableBody() throws {
        let endpoint = Endpoint<EndpointKinds.Public, EmptyResponse>(
            method: .post,
            path: "x",
            body: JSONBody(["value": Double.nan])
        )

        let error = try #require(throws: EndpointError.self) {
            try endpoint.makeRequest(in: Fixture.environment, with: ())
        }

        #expect(error.kind == .encodingFailed)
        #expect(error.request?.description == "POST https://api.test/v1/x")
    }

    @Test("A body that fails to encode is named by its type: the error never prints the value, password and all")
    func unencodableBodyHidesItsValue() throws {
        struct Login: Encodable, Sendable {
            var password = "hunter2-form-secret"
            var devices: [[String]] = [["phone"]]
        }
        let endpoint = Endpoint<EndpointKinds.Public, EmptyResponse>(
            method: .post,
            path: "login",
            body: FormBody(encoding: Login())
        )

        let error = try #require(throws: EndpointError.self) {
            try endpoint.makeRequest(in: Fixture.environment, with: ())
        }

        #expect(error.kind == .encodingFailed)
        #expect(error.message.contains("a Login value"))
        #expect(error.message.contains("`devices`"))
        for text in [error.description, error.message, String(reflecting: error.underlyingError as Any)] {
            #expect(!text.contains("hunter2-form-secret"))
        }
    }

    @Test(
        "Base URLs that are not absolute http(s) URLs are refused",
        arguments: ["file:///etc/passwd", "ftp://example.com/x", "/relative/path", "https:///nohost"]
    )
    func invalidBaseURL(base: String) throws {
        let environment = ServerEnvironment(baseURL: try #require(URL(string: base)))

        let error = try #require(throws: EndpointError.self) {
            try Endpoint.featuredItems.makeRequest(in: environment, with: ())
        }

        #expect(error.kind == .invalidRequest)
    }

    @Test("An empty interpolated segment is refused with the path in the message")
    func emptySegment() throws {
        let error = try #require(throws: EndpointError.self) {
            try Endpoint.item(rawID: "").makeRequest(in: Fixture.environment, with: ())
        }

        #expect(error.kind == .invalidRequest)
        #expect(error.message.contains("items/"))
    }

    @Test(
        "Methods that are not tokens are refused",
        arguments: ["GET /evil HTTP/1.1\r\nX: y", "", "BAD METHOD", "GET\n"]
    )
    func invalidMethod(method: String) throws {
        let endpoint = Endpoint<EndpointKinds.Public, EmptyResponse>(method: HTTPMethod(method), path: "x")

        let error = try #require(throws: EndpointError.self) {
            try endpoint.makeRequest(in: Fixture.environment, with: ())
        }

        #expect(error.kind == .invalidRequest)
    }

    @Test("A custom token method is sent as written")
    func customMethod() throws {
        let endpoint = Endpoint<EndpointKinds.Public, EmptyResponse>(method: "PURGE", path: "cache")

        let request = try endpoint.makeRequest(in: Fixture.environment, with: ())

        #expect(request.httpMethod == "PURGE")
    }

    @Test(
        "Header names and values that could inject lines are refused",
        arguments: [
            ("X-Name\r\nInjected", "v"), ("Bad Name", "v"), ("X-Ok", "a\r\nInjected: 1"), ("X-Ok", "a\nb"),
            ("X-Ok", "a\rb"), ("X-Ok", "a\u{0}b"), ("X-Ok", "caf\u{e9}"), ("", "v"), ("X-Ok", "bell\u{7}"),
        ]
    )
    func injectedHeaders(name: String, value: String) throws {
        var endpoint = Endpoint.featuredItems
        endpoint.headers[HTTPHeaders.Name(name)] = value

        let error = try #require(throws: EndpointError.self) {
            try endpoint.makeRequest(in: Fixture.environment, with: ())
        }

        #expect(error.kind == .invalidRequest)
        #expect(!error.description.contains("Injected: 1"))
    }

    @Test(
        "Headers the transport manages cannot be set",
        arguments: ["Host", "content-length", "Transfer-Encoding", "Connection", "TE", "Upgrade", "Expect"]
    )
    func managedHeaders(name: String) throws {
        var endpoint = Endpoint.featuredItems
        endpoint.headers[HTTPHeaders.Name(name)] = "1"

        let error = try #require(throws: EndpointError.self) {
            try endpoint.makeRequest(in: Fixture.environment, with: ())
        }

        #expect(error.kind == .invalidRequest)
    }

    @Test("A token that would break the Authorization header is refused, and the error does not show it")
    func tokenWithLineBreak() throws {
        let error = try #require(throws: EndpointError.self) {
            try Endpoint.search(for: "x").makeRequest(
                in: Fixture.environment,
                with: AccessToken("secret\r\nX-Evil: 1")
            )
        }

        #expect(error.kind == .invalidRequest)
        #expect(!error.description.contains("secret"))
    }

    @Test("A header name a kind sets through URLRequest is checked too")
    func kindHeaderChecked() throws {
        enum Sloppy: EndpointKind {
            static func prepare(_ request: inout URLRequest, with _: Void) {
                request.setValue("1", forHTTPHeaderField: "X-A\r\nInjected")
            }
        }
        let endpoint = Endpoint<Sloppy, EmptyResponse>(path: "x")

        let error = try #require(throws: EndpointError.self) {
            try endpoint.makeRequest(in: Fixture.environment, with: ())
        }

        #expect(error.kind == .invalidRequest)
    }

    @Test("A kind that throws refuses the request with invalidRequest")
    func kindThrows() throws {
        struct Refusal: Error {}
        enum Refusing: EndpointKind {
            static func prepare(_ request: inout URLRequest, with _: Void) throws { throw Refusal() }
        }

        let error = try #require(throws: EndpointError.self) {
            try Endpoint<Refusing, EmptyResponse>(path: "x").makeRequest(in: Fixture.environment, with: ())
        }

        #expect(error.kind == .invalidRequest)
        #expect(error.underlyingError is Refusal)
    }
}
