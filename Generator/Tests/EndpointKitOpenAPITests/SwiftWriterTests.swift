#if OpenAPI
import Foundation
import Testing

@testable import EndpointKitOpenAPI

@Suite("Swift source layout")
struct SwiftWriterTests {
    @Test("A list wraps within 120 columns: every item once, in order, each line but the last ending in a comma")
    func listWraps() {
        var out = SwiftWriter()
        let items = (1...60).map { "member\($0) = \"member_\($0)\"" }
        out.block("enum CodingKeys: String, CodingKey") { out in out.list(items, prefix: "case ") }
        let body = Array(out.lines.dropFirst().dropLast())
        #expect(body.count > 1)
        #expect(out.lines.allSatisfy { $0.count <= 120 })
        #expect(body[0].hasPrefix("    case member1 = "))
        #expect(body.dropFirst().allSatisfy { $0.hasPrefix("        member") })
        #expect(body.dropLast().allSatisfy { $0.hasSuffix(",") } && !(body.last ?? ",").hasSuffix(","))
        let written = body.joined(separator: " ").dropFirst("    case ".count)
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(written == items)
    }

    @Test("An item longer than a line is written alone on its line")
    func longItem() {
        var out = SwiftWriter()
        let long = String(repeating: "x", count: 130)
        out.list(["a", long, "b"], prefix: "case ")
        #expect(out.lines == ["case a,", "    \(long),", "    b"])
    }
}
#endif
