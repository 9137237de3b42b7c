import Foundation
import Testing

@testable import EndpointKit

@Suite(.timeLimit(.minutes(1))) struct EndpointPathTests {
    @Test("Literal text stays as written, leading slashes are dropped")
    func literalText() {
        let path: EndpointPath = "/users/me/settings"

        #expect(path.percentEncoded == "users/me/settings")
        #expect(path.problem == nil)
    }

    @Test("Literal text keeps existing escapes and encodes characters a path cannot hold")
    func literalEscapes() {
        let path: EndpointPath = "files/a%20b/new file?"

        #expect(path.percentEncoded == "files/a%20b/new%20file%3F")
    }

    @Test(
        "An interpolated value is exactly one encoded segment",
        arguments: [
            ("42", "items/42"),
            ("a/b?x=1#f", "items/a%2Fb%3Fx=1%23f"),
            ("...", "items/..."),
            ("a..b", "items/a..b"),
            ("100%", "items/100%25"),
            ("a;b", "items/a%3Bb"),
            ("a+b c", "items/a%2Bb%20c"),
            ("über", "items/%C3%BCber"),
            ("user@example.com", "items/user@example.com"),
            ("%2E%2E", "items/%252E%252E"),
        ]
    )
    func interpolatedSegment(value: String, expected: String) {
        let path: EndpointPath = "items/\(value)"

        #expect(path.percentEncoded == expected)
        #expect(path.problem == nil)
    }

    @Test("Interpolated integers and UUIDs read naturally")
    func interpolatedNumbers() throws {
        let id = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        let path: EndpointPath = "users/\(7)/devices/\(id)"

        #expect(path.percentEncoded == "users/7/devices/E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
    }

    @Test(
        "A value that is or holds a dot-segment is refused, however a server would decode it",
        arguments: ["..", ".", "../admin", "a/../b", "a/.", "./x", "..\\admin", "a/b/.."]
    )
    func dotSegments(value: String) {
        let path: EndpointPath = "items/\(value)"

        #expect(path.problem?.contains("dot-segment") == true)
        #expect(EndpointPath(segments: ["files", value]).problem != nil)
    }

    @Test("An empty interpolated value is a problem, not a silently shorter route")
    func emptyInterpolation() {
        let path: EndpointPath = "items/\("")/detail"

        #expect(path.problem != nil)
    }

    @Test("Segments are each encoded as one segment")
    func segmentsInitializer() {
        let path = EndpointPath(segments: ["files", "a/b", "c d"])

        #expect(path.percentEncoded == "files/a%2Fb/c%20d")
        #expect(path.problem == nil)
        #expect(EndpointPath(segments: ["files", ""]).problem != nil)
    }

    @Test("A sub-path can be spliced in as written")
    func splicedPath() {
        let prefix: EndpointPath = "v2/admin"
        let path: EndpointPath = "\(path: prefix)/users/\("a/b")"

        #expect(path.percentEncoded == "v2/admin/users/a%2Fb")
    }
}
