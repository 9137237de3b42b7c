import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(1))) struct RedirectPolicyTests {
    func request(_ string: String, method: HTTPMethod = .get, body: Data? = nil) throws -> TransportRequest {
        var headers: HTTPHeaders = [
            .accept: "application/json", .authorization: "Bearer s3cret", .cookie: "session=1", "X-Api-Key": "k-1",
            "X-Auth-Token": "t-1", "X-Tenant-Secret": "shh",
        ]
        if body != nil { headers[.contentType] = "application/json" }
        return TransportRequest(
            method: method,
            url: try #require(URL(string: string)),
            headers: headers,
            body: body.map { .data($0) }
        )
    }

    /// The redactor of a client whose defaults name `X-Tenant-Secret` as sensitive.
    var redactor: Redactor {
        var defaults = RequestDefaults()
        defaults.sensitiveHeaders = ["x-tenant-secret"]
        return Redactor(defaults)
    }

    func redirect(_ status: Int, to location: String) -> TransportResponse {
        TransportResponse(statusCode: status, headers: [.location: location])
    }

    @Test("A redirect to another origin drops every header the one secret list names: built-in and the client's")
    func crossOrigin() throws {
        let next = try #require(
            try RedirectPolicy.default.nextRequest(
                after: redirect(302, to: "https://other.test/b"),
                to: request("https://api.test/a"),
                redactor: redactor
            )
        )

        #expect(next.url.absoluteString == "https://other.test/b")
        #expect(next.headers[.authorization] == nil)
        #expect(next.headers[.cookie] == nil)
        #expect(next.headers["X-Api-Key"] == nil)
        #expect(next.headers["X-Auth-Token"] == nil)
        #expect(next.headers["X-Tenant-Secret"] == nil)
        #expect(next.headers[.accept] == "application/json")
    }

    @Test(
        "A change of port or scheme counts as another origin",
        arguments: ["https://api.test:8443/b", "http://api.test:80/b"]
    )
    func portAndScheme(target: String) throws {
        let next = try RedirectPolicy.default.nextRequest(
            after: redirect(302, to: target),
            to: request("http://api.test:8080/a"),
            redactor: redactor
        )

        #expect(next?.headers[.authorization] == nil)
    }

    @Test("A same-origin redirect keeps credentials; relative locations resolve against the request")
    func sameOrigin() throws {
        let next = try #require(
            try RedirectPolicy.default.nextRequest(
                after: redirect(301, to: "/b?x=1"),
                to: request("https://API.test:443/a"),
                redactor: redactor
            )
        )

        #expect(next.url.absoluteString == "https://API.test:443/b?x=1")
        #expect(next.headers[.authorization] == "Bearer s3cret")
        #expect(next.headers["X-Tenant-Secret"] == "shh")
    }

    @Test("https to http and non-http schemes are refused", arguments: ["http://api.test/a", "file:///etc/passwd"])
    func refused(target: String) throws {
        let error = try #require(throws: EndpointError.self) {
            try RedirectPolicy.default.nextRequest(
                after: redirect(302, to: target),
                to: request("https://api.test/a"),
                redactor: redactor
            )
        }

        #expect(error.kind == .redirectRefused)
    }

    @Test("A POST answered with 303 becomes a GET without body or content headers")
    func seeOther() throws {
        let original = try request("https://api.test/a", method: .post, body: Data("{}".utf8))

        let next = try #require(
            try RedirectPolicy.default.nextRequest(after: redirect(303, to: "/b"), to: original, redactor: redactor)
        )

        #expect(next.method == .get)
        #expect(next.body == nil)
        #expect(next.headers[.contentType] == nil)
    }

    @Test("307 and 308 keep the method and the body", arguments: [307, 308])
    func temporaryAndPermanent(status: Int) throws {
        let original = try request("https://api.test/a", method: .put, body: Data("{\"a\":1}".utf8))

        let next = try #require(
            try RedirectPolicy.default.nextRequest(after: redirect(status, to: "/b"), to: original, redactor: redactor)
        )

        #expect(next.method == .put)
        #expect(next.body?.data == Data("{\"a\":1}".utf8))
        #expect(next.headers[.contentType] == "application/json")
    }

    @Test("A body that cannot be sent twice cannot follow a 307")
    func streamBody() throws {
        var original = try request("https://api.test/a", method: .post)
        original.body = .chunks { AsyncThrowingStream { $0.finish() } }

        let error = try #require(throws: EndpointError.self) {
            try RedirectPolicy.default.nextRequest(after: redirect(307, to: "/b"), to: original, redactor: redactor)
        }

        #expect(error.kind == .redirectRefused)
    }

    @Test("The never policy and non-redirect statuses follow nothing", arguments: [200, 304, 300, 404])
    func notFollowed(status: Int) throws {
        #expect(
            try RedirectPolicy.default.nextRequest(
                after: redirect(status, to: "/b"),
                to: request("https://a.test/"),
                redactor: redactor
            ) == nil
        )
        #expect(
            try RedirectPolicy.never.nextRequest(
                after: redirect(302, to: "/b"),
                to: request("https://a.test/"),
                redactor: redactor
            ) == nil
        )
    }
}
