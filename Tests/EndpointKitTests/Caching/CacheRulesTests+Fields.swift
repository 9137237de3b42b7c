import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The RFC 9111 rules an independent conformance suite found broken: an `Age` list, an `Expires` that is no date,
/// the fields `Connection` names, and `Set-Cookie` (which the cache drops, by choice: see the caching article).
@Suite(.timeLimit(.minutes(1))) struct CacheFieldRulesTests {
    private static let responseDate = CacheRulesTests.responseDate

    private static func age(_ headers: HTTPHeaders, resident: Double) -> Double {
        let entry = HTTPCache.Entry(
            statusCode: 200,
            headers: headers,
            body: Data(),
            requestDate: responseDate,
            responseDate: responseDate,
            secondaryKey: nil
        )
        return CacheRules.currentAge(of: entry, now: responseDate.addingTimeInterval(resident))
    }

    @Test("§5.1: of an Age list, on one line or two, the first member counts")
    func ageList() {
        let date = CacheRulesTests.http(0)
        #expect(Self.age(["Date": date, "Age": "7200, 0"], resident: 1) == 7201)
        let twoLines = HTTPHeaders([
            .init(name: "Date", value: date), .init(name: "Age", value: "7200"), .init(name: "Age", value: "0"),
        ])
        #expect(Self.age(twoLines, resident: 1) == 7201)
        #expect(Self.age(["Date": date, "Age": "x, 7200"], resident: 1) == 1)
    }

    @Test(
        "§5.3: an Expires that is not an HTTP-date in an exact form is already past",
        arguments: [
            "Sat, 18 Nov 2023 22:13:20 UTC", "Sat, 18 Nov 2023 2:13:20 GMT", "Sat, 18-Nov-2023 22:13:20 GMT",
            "Sat 18 Nov 2023 22:13:20 GMT", "Sat,  18 Nov 2023 22:13:20 GMT", "Sat, 18 Nov 2023 22.13.20 GMT",
            "Sat, 18 Nov 2023 22:13:20", "Saturday, 18-Nov-23 22:13:20 UTC", "Sat Nov 18 22:13:20 2023 GMT",
        ]
    )
    func invalidExpires(_ expires: String) {
        let headers: HTTPHeaders = ["Date": CacheRulesTests.http(0), "Expires": expires]
        #expect(HTTPDate.parse(expires) == nil)
        let lifetime = CacheRules.freshnessLifetime(
            statusCode: 200,
            headers: headers,
            control: CacheControl(headers),
            at: Self.responseDate
        )
        #expect(lifetime == 0)
    }

    @Test("RFC 850's two-digit year more than 50 years ahead is in the past century (RFC 9110 §5.6.7)")
    func twoDigitYear() throws {
        let year = Calendar(identifier: .gregorian).component(.year, from: Date())
        let ahead = (year + 51) % 100
        let parsed = try #require(HTTPDate.parse("Sunday, 06-Nov-\(String(format: "%02d", ahead)) 08:49:37 GMT"))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "GMT"))
        #expect(calendar.component(.year, from: parsed) == year + 51 - 100)
    }

    @Test("§3.1: Connection, the fields it names and one-connection fields are not stored, nor merged from a 304")
    func connectionFields() async throws {
        let harness = CacheHarness { _, number in
            if number == 1 {
                return .item(
                    1,
                    "tea",
                    headers: [
                        "Cache-Control": "max-age=10", "ETag": "\"v1\"", "Connection": "a, keep-alive", "a": "1",
                        "Keep-Alive": "timeout=5", "b": "2",
                    ]
                )
            }
            return .response(
                status: 304,
                headers: ["Cache-Control": "max-age=100", "ETag": "\"v1\"", "Connection": "c", "c": "3", "d": "4"]
            )
        }
        _ = try await harness.client.exchange(for: .item(1))
        let served = try await harness.client.exchange(for: .item(1))
        #expect(served.source == .cache)
        #expect(
            served.headers["a"] == nil && served.headers["connection"] == nil && served.headers["keep-alive"] == nil
        )
        #expect(served.headers["b"] == "2")
        harness.wall.advance(11)
        let revalidated = try await harness.client.exchange(for: .item(1))
        #expect(revalidated.source == .revalidated)
        #expect(revalidated.headers["c"] == nil && revalidated.headers["d"] == "4")
    }

    @Test("Set-Cookie is dropped from a stored response: a response served from the cache carries none")
    func setCookieDropped() async throws {
        let harness = CacheHarness { _, _ in
            .item(1, "tea", headers: ["Cache-Control": "max-age=60", "Set-Cookie": "sid=1"])
        }
        let first = try await harness.client.exchange(for: .item(1))
        let second = try await harness.client.exchange(for: .item(1))
        #expect(first.headers[.setCookie] == "sid=1")
        #expect(second.source == .cache)
        #expect(second.headers[.setCookie] == nil)
    }
}
