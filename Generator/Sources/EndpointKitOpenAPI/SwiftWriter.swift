#if OpenAPI
import Foundation
/// Swift source text, written line by line with four-space indentation.
struct SwiftWriter {
    private(set) var lines: [String] = []
    private var depth = 0

    var text: String { lines.joined(separator: "\n") + "\n" }

    mutating func line(_ text: String = "") {
        lines.append(text.isEmpty ? "" : String(repeating: "    ", count: depth) + text)
    }

    /// `items` after `prefix`, separated by commas and wrapped so that each line stays within 120 columns where
    /// its items fit; a line that goes on ends with a comma, and the next starts one level deeper.
    mutating func list(_ items: [String], prefix: String) {
        let width = 120 - 4 * depth
        var current = prefix
        for (index, item) in items.enumerated() {
            let text = item + (index == items.count - 1 ? "" : ",")
            if index == 0 {
                current += text
            } else if current.count + 1 + text.count > width {
                line(current)
                current = "    " + text
            } else {
                current += " " + text
            }
        }
        line(current)
    }

    /// `header {`, the lines `body` writes one level deeper, then `}`.
    mutating func block(_ header: String, _ body: (inout SwiftWriter) -> Void) {
        line(header + " {")
        depth += 1
        body(&self)
        depth -= 1
        line("}")
    }

    /// `switch subject {`, the `case` lines `body` writes at the same depth (as swift-format places them), then `}`.
    mutating func switchBlock(_ subject: String, _ body: (inout SwiftWriter) -> Void) {
        line("switch \(subject) {")
        body(&self)
        line("}")
    }

    /// Documentation comment lines for `text`: its first paragraph, each line trimmed, cut at `limit` characters.
    /// Returns whether it wrote any.
    @discardableResult
    mutating func documentation(_ text: String?, limit: Int = 300) -> Bool {
        guard let paragraph = Self.firstParagraph(text, limit: limit) else { return false }
        for part in paragraph { line("/// " + part) }
        return true
    }

    static func firstParagraph(_ text: String?, limit: Int) -> [String]? {
        guard let text else { return nil }
        let lines = text.replacingOccurrences(of: "\r", with: "").split(
            separator: "\n",
            omittingEmptySubsequences: false
        )
        var paragraph: [String] = []
        var count = 0
        for raw in lines {
            let trimmed = raw.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { if paragraph.isEmpty { continue } else { break } }
            if count + trimmed.count > limit {
                paragraph.append(String(trimmed.prefix(max(0, limit - count))) + "…")
                break
            }
            paragraph.append(trimmed)
            count += trimmed.count
        }
        return paragraph.isEmpty ? nil : paragraph
    }
}
#endif
