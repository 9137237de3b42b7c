import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct RedirectPolicyTests {
    func request(_ string: String, method: String = "GET", body: Data? = nil) throws -> TransportRequest {
        var request = URLRequest(url: try #require(URL(string: string)))
        request.httpMethod = method
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue("Bearer s3cret", forHTTPHeaderField: "Authorization")
        request.setValue("session=1", forHTTPHeaderField: "Cookie")
        request.setValue("k-1", forHTTPHeaderField: "X-Api-Key")
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        return TransportRequest(urlRequest: request)
    }

    func redirect(_ status: Int, to location: String) -> HTTPResponse {
        HTTPResponse(statusCode: status, headers: [.location: location])
    }

    @Test("A redirect to another origin drops credential headers and the ones marked sensitive")
    func crossOrigin() throws {
        let policy = RedirectPolicy(sensitiveHeaders: ["x-api-key"])

        let next = try #require(
            try policy.nextRequest(after: redirect(302, to: "https://other.test/b"), to: request("https://api.test/a"))
        )

        #expect(next.urlRequest.url?.absoluteString == "https://other.test/b")
        #expect(next.urlRequest.value(forHTTPHeaderField: "Authorization") == nil)
        #expect(next.urlRequest.value(forHTTPHeaderField: "Cookie") == nil)
        #expect(next.urlRequest.value(forHTTPHeaderField: "X-Api-Key") == nil)
        #expect(next.urlRequest.value(forHTTPHeaderField: "Accept") == "application/json")
    }

    @Test(
        "A change of port or scheme counts as another origin",
        arguments: ["https://api.test:8443/b", "http://api.test:80/b"]
    )
    func portAndScheme(target: String) throws {
        let next = try RedirectPolicy.default.nextRequest(
            after: redirect(302, to: target),
            to: request("http://api.test:8080/a")
        )

        #expect(next?.urlRequest.value(forHTTPHeaderField: "Authorization") == nil)
    }

    @Test("A same-origin redirect keeps credentials; relative locations resolve against the request")
    func sameOrigin() throws {
        let next = try #require(
            try RedirectPolicy.default.nextRequest(
                after: redirect(301, to: "/b?x=1"),
                to: request("https://API.test:443/a")
            )
        )

        #expect(next.urlRequest.url?.absoluteString == "https://API.test:443/b?x=1")
        #expect(next.urlRequest.value(forHTTPHeaderField: "Authorization") == "Bearer s3cret")
    }

    @Test("https to http and non-http schemes are refused", arguments: ["http://api.test/a", "file:///etc/passwd"])
    func refused(target: String) throws {
        let error = try #require(throws: EndpointError.self) {
            try RedirectPolicy.default.nextRequest(after: redirect(302, to: target), to: request("https://api.test/a"))
        }

        #expect(error.kind == .redirectRefused)
    }

    @Test("A POST answered with 303 becomes a GET without body or content headers")
    func seeOther() throws {
        let original = try request("https://api.test/a", method: "POST", body: Data("{}".utf8))

        let next = try #require(try RedirectPolicy.default.nextRequest(after: redirect(303, to: "/b"), to: original))

        #expect(next.urlRequest.httpMethod == "GET")
        #expect(next.urlRequest.httpBody == nil)
        #expect(next.urlRequest.value(forHTTPHeaderField: "Content-Type") == nil)
    }

    @Test("307 and 308 keep the method and the body", arguments: [307, 308])
    func temporaryAndPermanent(status: Int) throws {
        let original = try request("https://api.test/a", method: "PUT", body: Data("{\"a\":1}".utf8))

        let next = try #require(try RedirectPolicy.default.nextRequest(after: redirect(status, to: "/b"), to: original))

        #expect(next.urlRequest.httpMethod == "PUT")
        #expect(next.urlRequest.httpBody == Data("{\"a\":1}".utf8))
        #expect(next.urlRequest.value(forHTTPHeaderField: "Content-Type") == "application/json")
    }

    @Test("A stream body cannot follow a 307")
    func streamBody() throws {
        var original = try request("https://api.test/a", method: "POST")
        original.urlRequest.httpBodyStream = InputStream(data: Data("x".utf8))

        let error = try #require(throws: EndpointError.self) {
            try RedirectPolicy.default.nextRequest(after: redirect(307, to: "/b"), to: original)
        }

        #expect(error.kind == .redirectRefused)
    }

    @Test("The never policy and non-redirect statuses follow nothing", arguments: [200, 304, 300, 404])
    func notFollowed(status: Int) throws {
        #expect(
            try RedirectPolicy.default.nextRequest(after: redirect(status, to: "/b"), to: request("https://a.test/"))
                == nil
        )
        #expect(
            try RedirectPolicy.never.nextRequest(after: redirect(302, to: "/b"), to: request("https://a.test/")) == nil
        )
    }
}
