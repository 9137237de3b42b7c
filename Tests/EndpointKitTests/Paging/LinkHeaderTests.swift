import Foundation
import Testing

@testable import EndpointKit

/// RFC 8288 `Link` fields, as servers write them.
@Suite struct LinkHeaderTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let fields: [String]
        let next: String?
        var testDescription: String { name }
    }

    // swift-format-ignore: NeverForceUnwrap
    // A literal that is a valid URL.
    static let base = URL(string: "https://api.test/v1/items?page=1")!

    static let cases: [Case] = [
        Case(
            name: "GitHub's form: several links in one field",
            fields: [
                #"<https://api.test/v1/items?page=2>; rel="next", <https://api.test/v1/items?page=9>; rel="last""#
            ],
            next: "https://api.test/v1/items?page=2"
        ),
        Case(
            name: "Links over several fields",
            fields: [
                #"<https://api.test/v1/items?page=9>; rel="last""#, #"<https://api.test/v1/items?page=2>; rel="next""#,
            ],
            next: "https://api.test/v1/items?page=2"
        ),
        Case(
            name: "An unquoted rel",
            fields: ["</v1/items?page=2>; rel=next"],
            next: "https://api.test/v1/items?page=2"
        ),
        Case(
            name: "A relative reference is resolved against the URL that answered",
            fields: [#"<?page=2>; rel="next""#],
            next: "https://api.test/v1/items?page=2"
        ),
        Case(
            name: "A rel with several types, any case",
            fields: [#"<items?page=2>; REL="Next Prefetch""#],
            next: "https://api.test/v1/items?page=2"
        ),
        Case(
            name: "A comma and a semicolon inside a quoted parameter",
            fields: [#"<https://api.test/a>; title="a, b; c"; rel="prev", <https://api.test/b>; rel="next""#],
            next: "https://api.test/b"
        ),
        Case(
            name: "Only the first rel of a link counts",
            fields: [#"<https://api.test/a>; rel="prev"; rel="next""#],
            next: nil
        ),
        Case(
            name: "An empty reference is the URL that answered (RFC 3986 §5.2)",
            fields: [#"<>; rel="next""#],
            next: "https://api.test/v1/items?page=1"
        ),
        Case(name: "No next link", fields: [#"<https://api.test/a>; rel="prev""#], next: nil),
        Case(name: "Garbage", fields: ["next", "<unterminated; rel=next", ""], next: nil),
    ]

    @Test("The next link", arguments: cases)
    func next(_ row: Case) {
        var headers = HTTPHeaders()
        for field in row.fields { headers.add(field, for: .link) }
        #expect((try? LinkHeader.target(of: "next", in: headers, relativeTo: Self.base))??.absoluteString == row.next)
    }
}
