import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct URLSessionTransportTests {
    @Test(
        "Timeouts are rounded up to whole seconds, at least one",
        arguments: [(0.5, 1.0), (1.9, 2.0), (2.0, 2.0), (0.001, 1.0), (30.2, 31.0)]
    )
    func wholeSeconds(input: TimeInterval, expected: TimeInterval) {
        #expect(URLSessionTransport.wholeSeconds(input) == expected)
    }

    @Test("The default configuration keeps no cookies and no cache")
    func defaultConfiguration() {
        let configuration = URLSessionTransport.defaultConfiguration()

        #expect(configuration.httpCookieStorage == nil)
        #expect(configuration.httpShouldSetCookies == false)
        #expect(configuration.urlCache == nil)
    }

    @Test("A redirect to another origin drops credential headers")
    func crossOriginRedirect() throws {
        let previous = try request("https://api.test/a", authorized: true)
        let next = try request("https://other.test/b", authorized: true)

        let followed = try #require(URLSessionTransport.SessionDelegate.redirect(from: previous, to: next))

        #expect(followed.value(forHTTPHeaderField: "Authorization") == nil)
        #expect(followed.value(forHTTPHeaderField: "Cookie") == nil)
        #expect(followed.value(forHTTPHeaderField: "Accept") == "application/json")
    }

    @Test(
        "A change of port or scheme counts as another origin",
        arguments: ["https://api.test:8443/b", "http://api.test:443/b"]
    )
    func portAndScheme(target: String) throws {
        let previous = try request("https://api.test/a", authorized: true)

        let followed = URLSessionTransport.SessionDelegate.redirect(
            from: previous,
            to: try request(target, authorized: true)
        )

        #expect(followed?.value(forHTTPHeaderField: "Authorization") == nil)
    }

    @Test("A same-origin redirect keeps credentials")
    func sameOriginRedirect() throws {
        let previous = try request("https://api.test/a", authorized: true)
        let next = try request("https://API.test:443/b", authorized: true)

        let followed = try #require(URLSessionTransport.SessionDelegate.redirect(from: previous, to: next))

        #expect(followed.value(forHTTPHeaderField: "Authorization") == "Bearer s3cret")
    }

    @Test("A downgrade from https to http, or to another scheme, is not followed")
    func downgrade() throws {
        let previous = try request("https://api.test/a", authorized: true)

        #expect(
            URLSessionTransport.SessionDelegate.redirect(from: previous, to: try request("http://api.test/a")) == nil
        )
        #expect(
            URLSessionTransport.SessionDelegate.redirect(from: previous, to: try request("file:///etc/passwd")) == nil
        )
    }

    private func request(_ string: String, authorized: Bool = false) throws -> URLRequest {
        var request = URLRequest(url: try #require(URL(string: string)))
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if authorized {
            request.setValue("Bearer s3cret", forHTTPHeaderField: "Authorization")
            request.setValue("session=1", forHTTPHeaderField: "Cookie")
        }
        return request
    }
}
