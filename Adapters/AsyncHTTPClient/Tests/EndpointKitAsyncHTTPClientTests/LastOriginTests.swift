#if AsyncHTTPClient
import Foundation
import Testing

@testable import EndpointKitAsyncHTTPClient

/// The admission's memo of the last origin: a URL that only looks like the last one gets its own origin.
struct LastOriginTests {
    @Test("Each URL in a row gets its own origin, however much of the last one's text it shares")
    func originsInARow() throws {
        let urls = [
            "http://a:80/x", "http://a:80/y?q=1", "http://a:8080/x", "http://a/x", "http://a.b/x", "https://a/x",
            "HTTP://A/x", "http://user@a/x", "http://a?x", "http://a#x", "http://[::1]:80/x", "http://[::1]:8/x",
            "http://a:80/x",
        ]
        var last = LastOrigin()
        for text in urls {
            let url = try #require(URL(string: text))
            #expect(last.key(for: url) == OriginKey(url), "\(text)")
        }
    }
}
#endif
