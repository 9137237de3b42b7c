import Foundation

/// Multipart assembly: the body splits at its boundary into exactly the parts given, each part's headers are
/// the expected lines (names and file names with `"`, CR and LF escaped, so they cannot add a header or a part)
/// and each part's content comes back byte for byte.
enum MultipartFuzz {
    static func run(_ input: inout FuzzInput) {
        var parts: [MultipartBody.Part] = []
        var expected: [(header: String, content: [UInt8])] = []
        let count = 1 + input.number(below: 3)
        for _ in 0..<count {
            let name = input.text()
            let content = input.field()
            if input.byte() % 2 == 0 {
                parts.append(.field(name, String(decoding: content, as: UTF8.self)))
                let text = Array(String(decoding: content, as: UTF8.self).utf8)
                expected.append(("Content-Disposition: form-data; name=\"\(escaped(name))\"", text))
            } else {
                let filename = input.text()
                let contentType = input.byte() % 4 == 0 ? input.text() : "application/octet-stream"
                parts.append(.file(name, filename: filename, contentType: contentType, data: Data(content)))
                expected.append(
                    (
                        "Content-Disposition: form-data; name=\"\(escaped(name))\"; filename=\"\(escaped(filename))\""
                            + "\r\nContent-Type: \(contentType)", content
                    )
                )
            }
        }
        let badContentType = parts.contains { part in
            part.contentType.map { !$0.unicodeScalars.allSatisfy { $0 == "\t" || (0x20...0x7E).contains($0.value) } }
                ?? false
        }
        let content: RequestBodyContent
        do {
            content = try MultipartBody(parts).makeContent(context: RequestBodyContext(jsonEncoder: JSONEncoder()))
        } catch {
            require(badContentType, "a valid form failed to encode: \(error)")
            return
        }
        require(!badContentType, "a part's Content-Type with a control character or non-ASCII text was accepted")
        guard case .data(let body) = content.source else {
            require(false, "an in-memory form was not encoded in memory")
            return
        }
        let prefix = "multipart/form-data; boundary="
        let contentType = required(content.contentType, "a form without a Content-Type")
        require(contentType.hasPrefix(prefix), "Content-Type \(contentType)")
        let boundary = Array(("\r\n--" + contentType.dropFirst(prefix.count)).utf8)
        // Prepending CRLF makes every delimiter, the first included, "CRLF--boundary".
        let pieces = split([13, 10] + Array(body), at: boundary)
        require(pieces.count == parts.count + 2, "\(parts.count) parts became \(pieces.count - 2)")
        require(pieces.first?.isEmpty == true, "bytes before the first boundary")
        require(pieces.last == Array("--\r\n".utf8), "the closing delimiter is not last")
        for (piece, expectation) in zip(pieces.dropFirst().dropLast(), expected) {
            require(piece.starts(with: [13, 10]), "a boundary line does not end in CRLF")
            let rest = Array(piece.dropFirst(2))
            let headerEnd = required(firstRange(of: [13, 10, 13, 10], in: rest), "a part without a blank line")
            let header = String(decoding: rest[..<headerEnd], as: UTF8.self)
            require(header == expectation.header, "part headers \(header.debugDescription)")
            require(Array(rest[(headerEnd + 4)...]) == expectation.content, "a part's content changed")
        }
    }

    /// The harness's own rendering of a quoted name: `"`, CR and LF percent-encoded, as HTML forms do.
    private static func escaped(_ text: String) -> String {
        var output = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "%22"
            case "\r": output += "%0D"
            case "\n": output += "%0A"
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output
    }

    private static func split(_ bytes: [UInt8], at separator: [UInt8]) -> [[UInt8]] {
        var pieces: [[UInt8]] = []
        var rest = bytes[...]
        while let start = firstRange(of: separator, in: Array(rest)) {
            pieces.append(Array(rest.prefix(start)))
            rest = rest.dropFirst(start + separator.count)
        }
        pieces.append(Array(rest))
        return pieces
    }

    private static func firstRange(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count)
        where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return start
        }
        return nil
    }
}
