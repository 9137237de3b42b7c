import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(1))) struct URLSessionTransportTests {
    @Test(
        "Timeouts are rounded up to whole seconds, at least one and at most a day",
        arguments: [
            (0.5, 1.0), (1.9, 2.0), (2.0, 2.0), (0.001, 1.0), (30.2, 31.0), (.infinity, 86_400), (1e300, 86_400),
        ]
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
}
