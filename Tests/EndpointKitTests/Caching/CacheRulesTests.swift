import Foundation
import Testing

@testable import EndpointKit

/// RFC 9111's rules as pure functions: each row names its section.
@Suite struct CacheRulesTests {
    static let responseDate = Date(timeIntervalSince1970: 1_700_000_000)
    static func http(_ offset: Double) -> String { httpDate(responseDate.addingTimeInterval(offset)) }

    struct Lifetime: Sendable, CustomTestStringConvertible {
        let section: String
        let status: Int
        let headers: HTTPHeaders
        let expected: Double
        var testDescription: String { "\(section): \(status) \(headers) → \(expected) s" }
    }

    static let lifetimes: [Lifetime] = [
        Lifetime(section: "§4.2.1 max-age", status: 200, headers: ["Cache-Control": "max-age=60"], expected: 60),
        Lifetime(
            section: "§4.2.1 max-age wins over Expires",
            status: 200,
            headers: ["Cache-Control": "private, max-age=5", "Expires": http(600), "Date": http(0)],
            expected: 5
        ),
        Lifetime(
            section: "§4.2.1 Expires − Date",
            status: 200,
            headers: ["Expires": http(120), "Date": http(20)],
            expected: 100
        ),
        Lifetime(section: "§4.2.1 invalid Expires is expired", status: 200, headers: ["Expires": "0"], expected: 0),
        Lifetime(
            section: "§4.2.1 invalid max-age is stale",
            status: 200,
            headers: ["Cache-Control": "max-age=soon"],
            expected: 0
        ),
        Lifetime(
            section: "§4.2.1 conflicting max-age is stale",
            status: 200,
            headers: ["Cache-Control": "max-age=60, max-age=30"],
            expected: 0
        ),
        Lifetime(
            section: "§4.2.1 quoted max-age",
            status: 200,
            headers: ["Cache-Control": #"max-age="60""#],
            expected: 60
        ),
        Lifetime(
            section: "§4.2.2 heuristic: 10 % of Date − Last-Modified",
            status: 200,
            headers: ["Date": http(0), "Last-Modified": http(-1000)],
            expected: 100
        ),
        Lifetime(
            section: "§4.2.2 heuristic capped at a day",
            status: 200,
            headers: ["Date": http(0), "Last-Modified": http(-100 * 86_400)],
            expected: 86_400
        ),
        Lifetime(
            section: "§4.2.2 heuristic for a heuristically cacheable 404",
            status: 404,
            headers: ["Date": http(0), "Last-Modified": http(-1000)],
            expected: 100
        ),
        Lifetime(
            section: "§4.2.2 no heuristic for a 500",
            status: 500,
            headers: ["Date": http(0), "Last-Modified": http(-1000)],
            expected: 0
        ),
        Lifetime(
            section: "§4.2.2 a Date in the future does not lengthen the heuristic",
            status: 200,
            headers: ["Date": http(9000), "Last-Modified": http(-1000)],
            expected: 100
        ),
        Lifetime(section: "§4.2.1 nothing: 0", status: 200, headers: [:], expected: 0),
    ]

    @Test("Freshness lifetime", arguments: lifetimes)
    func lifetime(_ row: Lifetime) {
        let lifetime = CacheRules.freshnessLifetime(
            statusCode: row.status,
            headers: row.headers,
            control: CacheControl(row.headers),
            at: Self.responseDate
        )
        #expect(abs(lifetime - row.expected) < 0.001)
    }

    struct Age: Sendable, CustomTestStringConvertible {
        let section: String
        let headers: HTTPHeaders
        let requestDelay: Double
        let resident: Double
        let expected: Double
        var testDescription: String { "\(section) → \(expected) s" }
    }

    static let ages: [Age] = [
        Age(section: "§4.2.3 resident time", headers: ["Date": http(0)], requestDelay: 0, resident: 30, expected: 30),
        Age(
            section: "§4.2.3 Age plus the response delay",
            headers: ["Date": http(0), "Age": "100"],
            requestDelay: 2,
            resident: 10,
            expected: 112
        ),
        Age(
            section: "§4.2.3 apparent age from an old Date",
            headers: ["Date": http(-50)],
            requestDelay: 0,
            resident: 0,
            expected: 50
        ),
        Age(
            section: "§4.2.3 a Date in the future is never trusted",
            headers: ["Date": http(3600)],
            requestDelay: 0,
            resident: 5,
            expected: 5
        ),
        Age(
            section: "§4.2.3 an invalid Age counts as 0",
            headers: ["Date": http(0), "Age": "-5"],
            requestDelay: 0,
            resident: 1,
            expected: 1
        ),
    ]

    @Test("Current age", arguments: ages)
    func age(_ row: Age) {
        let entry = HTTPCache.Entry(
            statusCode: 200,
            headers: row.headers,
            body: Data(),
            requestDate: Self.responseDate.addingTimeInterval(-row.requestDelay),
            responseDate: Self.responseDate,
            secondaryKey: nil
        )
        let age = CacheRules.currentAge(of: entry, now: Self.responseDate.addingTimeInterval(row.resident))
        #expect(abs(age - row.expected) < 0.001)
    }

    struct Storable: Sendable, CustomTestStringConvertible {
        let section: String
        let method: HTTPMethod
        let status: Int
        let headers: HTTPHeaders
        var requestHeaders: HTTPHeaders = [:]
        let expected: Bool
        var testDescription: String { "\(section): \(method) \(status) → \(expected ? "stored" : "not stored")" }
    }

    static let storables: [Storable] = [
        Storable(
            section: "§3 GET 200 max-age",
            method: .get,
            status: 200,
            headers: ["Cache-Control": "max-age=60"],
            expected: true
        ),
        Storable(
            section: "§3 HEAD 200 max-age",
            method: .head,
            status: 200,
            headers: ["Cache-Control": "max-age=60"],
            expected: true
        ),
        Storable(
            section: "§3 POST is not stored",
            method: .post,
            status: 200,
            headers: ["Cache-Control": "max-age=60"],
            expected: false
        ),
        Storable(
            section: "§3 206 is never stored",
            method: .get,
            status: 206,
            headers: ["Cache-Control": "max-age=60"],
            expected: false
        ),
        Storable(
            section: "§3 a 500 without explicit freshness",
            method: .get,
            status: 500,
            headers: ["ETag": "\"a\""],
            expected: false
        ),
        Storable(
            section: "§3 a 404 with a validator is heuristically cacheable",
            method: .get,
            status: 404,
            headers: ["ETag": "\"a\""],
            expected: true
        ),
        Storable(
            section: "§3 a 200 with only an ETag (revalidated every time)",
            method: .get,
            status: 200,
            headers: ["ETag": "\"a\""],
            expected: true
        ),
        Storable(
            section: "§3 a 200 with neither freshness nor validator is dead weight",
            method: .get,
            status: 200,
            headers: [:],
            expected: false
        ),
        Storable(
            section: "§5.2.2.5 response no-store",
            method: .get,
            status: 200,
            headers: ["Cache-Control": "max-age=60, no-store"],
            expected: false
        ),
        Storable(
            section: "§5.2.1.5 request no-store",
            method: .get,
            status: 200,
            headers: ["Cache-Control": "max-age=60"],
            requestHeaders: ["Cache-Control": "no-store"],
            expected: false
        ),
        Storable(
            section: "§4.1 Vary: * is never stored",
            method: .get,
            status: 200,
            headers: ["Cache-Control": "max-age=60", "Vary": "Accept, *"],
            expected: false
        ),
        Storable(
            section: "§3 private is fine for a private cache",
            method: .get,
            status: 200,
            headers: ["Cache-Control": "private, max-age=60"],
            expected: true
        ),
    ]

    @Test("What may be stored", arguments: storables)
    func storable(_ row: Storable) {
        let stored = CacheRules.isStorable(
            method: row.method,
            statusCode: row.status,
            headers: row.headers,
            control: CacheControl(row.headers),
            request: RequestCacheRules(headers: row.requestHeaders)
        )
        #expect(stored == row.expected)
    }

    @Test("Cache-Control directives: case, spaces, quoted values with commas, valueless max-stale")
    func parsing() {
        let control = CacheControl(["Cache-Control": #"Max-Age = 60 , private="Set-Cookie, X", MAX-STALE"#])
        #expect(control.seconds("max-age") == 60)
        #expect(control.directives["private"] == .some("Set-Cookie, X"))
        #expect(control.maxStale == .infinity)
        #expect(control.seconds("min-fresh") == nil)
    }

    @Test("SHA-256 and HMAC-SHA-256 match the published test vectors")
    func digests() {
        #expect(
            SHA256.hash(Array("abc".utf8)).hexadecimal
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        )
        #expect(
            SHA256.hash([UInt8]()).hexadecimal == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        )
        let long = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(SHA256.hash(long).hexadecimal == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        let twoBlocks = Array(
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"
                .utf8
        )
        #expect(
            SHA256.hash(twoBlocks).hexadecimal == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        )
        // RFC 4231, test case 6: a key longer than a block.
        #expect(
            SHA256.authenticationCode(
                for: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
                key: [UInt8](repeating: 0xaa, count: 131)
            ).hexadecimal == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        )
        // RFC 4231, test case 2.
        #expect(
            SHA256.authenticationCode(for: Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8))
                .hexadecimal == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        )
    }

    @Test("HTTP-dates: the preferred form by hand, the obsolete ones, and nothing else")
    func dates() {
        let expected = Date(timeIntervalSince1970: 784_111_777)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == expected)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == expected)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == expected)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 XYZ") == nil)
        #expect(HTTPDate.parse("Sun, 36 Nov 1994 08:49:37 GMT") == nil)
        #expect(HTTPDate.parse("w\u{6E0}mmm:2FF") == nil)
        #expect(HTTPDate.parse(httpDate(Self.responseDate)) == Self.responseDate)
    }
}
