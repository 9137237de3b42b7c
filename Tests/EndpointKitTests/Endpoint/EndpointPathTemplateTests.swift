import EndpointKit
import EndpointKitTesting
import Foundation
import Testing

@Suite struct EndpointPathTemplateTests {
    @Test(
        "A path's template names each interpolated value and keeps the literal route",
        arguments: [
            (EndpointPath("featured"), "featured"),
            ("items/\(42)", "items/{id}"),
            ("/items/\(42)/comments", "items/{id}/comments"),
            ("repos/\("apple", as: "owner")/\("swift", as: "repo")/pulls", "repos/{owner}/{repo}/pulls"),
            ("files/\("a/b?c")", "files/{id}"),
            ("v2/\(path: "items/\(7)")/tags", "v2/items/{id}/tags"),
            ("naïve path/\(1)", "na%C3%AFve%20path/{id}"),
        ] as [(EndpointPath, String)]
    )
    func template(path: EndpointPath, expected: String) {
        #expect(path.template == expected)
    }

    @Test("A path made from segments, or holding one, has no template: nothing tells its route")
    func unknownRoute() {
        #expect(EndpointPath(segments: ["files", "x"]).template == nil)
        let composed: EndpointPath = "v2/\(path: EndpointPath(segments: ["a"]))"
        #expect(composed.template == nil)
    }

    @Test("How a path was built does not change its equality: the same text is the same path")
    func equality() {
        let literal: EndpointPath = "items/1"
        let interpolated: EndpointPath = "items/\(1)"
        #expect(literal == interpolated)
        #expect(Set([literal, interpolated]).count == 1)
    }
}
