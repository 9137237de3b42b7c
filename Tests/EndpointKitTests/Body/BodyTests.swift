import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(1))) struct BodyTests {
    let context = RequestBodyContext(jsonEncoder: JSONEncoder())

    func text(_ content: RequestBodyContent) throws -> String {
        guard case .data(let data) = content.source else {
            Issue.record("expected an in-memory body")
            return ""
        }
        return String(decoding: data, as: UTF8.self)
    }

    @Test("A form from pairs is URL-encoded in order, + & = and unicode included")
    func formPairs() throws {
        let nickname: String? = nil

        let content = try FormBody(["user": "ann+bob", "password": "p&ss=w0rd ü", "nick": nickname, "ids": [1, 2]])
            .makeContent(context: context)

        #expect(content.contentType == "application/x-www-form-urlencoded")
        #expect(try text(content) == "user=ann%2Bbob&password=p%26ss%3Dw0rd%20%C3%BC&ids=1&ids=2")
    }

    @Test("A form with an empty value keeps the field")
    func formEmptyValue() throws {
        let content = try FormBody(fields: [(name: "a", value: ""), (name: "b", value: "1")])
            .makeContent(context: context)

        #expect(try text(content) == "a=&b=1")
    }

    @Test("A form from an Encodable uses the client's key strategy and flattens nested values")
    func formEncodable() throws {
        struct Login: Encodable, Sendable {
            var userName: String
            var remember: Bool
            var scopes: [String]
            var device: Device
            var referrer: String?
            struct Device: Encodable, Sendable { var osName: String }
        }
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let login = Login(
            userName: "ann",
            remember: true,
            scopes: ["read", "write"],
            device: .init(osName: "linux"),
            referrer: nil
        )

        let content = try FormBody(encoding: login).makeContent(context: RequestBodyContext(jsonEncoder: encoder))

        #expect(
            try text(content)
                == "device%5Bos_name%5D=linux&remember=true&scopes=read&scopes=write&user_name=ann"
        )
    }

    struct Checkout: Encodable, Sendable {
        var expand: [String]
        var lineItems: [Item]
        var matrix: [[Int]] = []
        struct Item: Encodable, Sendable {
            var price: String
            var quantity: Int
        }
    }

    @Test("A form with indexed lists writes each item under its index, nested objects and lists too")
    func formIndexedLists() throws {
        let checkout = Checkout(
            expand: ["customer", "invoice"],
            lineItems: [.init(price: "p_1", quantity: 2), .init(price: "p 2", quantity: 1)],
            matrix: [[1], [2, 3]]
        )

        let content = try FormBody(encoding: checkout, lists: .indexed).makeContent(context: context)

        let fields = try text(content).removingPercentEncoding?.split(separator: "&").map(String.init)
        #expect(
            fields == [
                "expand[0]=customer", "expand[1]=invoice", "lineItems[0][price]=p_1", "lineItems[0][quantity]=2",
                "lineItems[1][price]=p 2", "lineItems[1][quantity]=1", "matrix[0][0]=1", "matrix[1][0]=2",
                "matrix[1][1]=3",
            ]
        )
    }

    @Test("In an indexed list, an item that writes no field takes no index: the indexes a reader sees run 0, 1, 2")
    func formIndexedListsSkipEmptyItems() throws {
        struct Order: Encodable, Sendable {
            var items: [[String: String]?]
            var tags: [[String]]
        }
        let order = Order(items: [[:], nil, ["price": "p_1"], [:], ["price": "p_2"]], tags: [[], ["a"]])

        let content = try FormBody(encoding: order, lists: .indexed).makeContent(context: context)

        #expect(
            try text(content).removingPercentEncoding == "items[0][price]=p_1&items[1][price]=p_2&tags[0][0]=a"
        )
    }

    @Test("A form that repeats names refuses a list of objects or of lists, naming it, rather than mixing its items")
    func formRepeatedNamesRefuseNestedLists() throws {
        let objects = Checkout(expand: ["a"], lineItems: [.init(price: "p_1", quantity: 2)])
        let lists = Checkout(expand: ["a"], lineItems: [], matrix: [[1]])

        for (value, name) in [(objects, "lineItems"), (lists, "matrix")] {
            let error = #expect(throws: EncodingError.self) {
                try FormBody(encoding: value).makeContent(context: context)
            }
            guard case .invalidValue(_, let details) = error else { continue }
            #expect(details.debugDescription.contains("`\(name)`"))
            #expect(details.debugDescription.contains(".indexed"))
        }
        let plain = Checkout(expand: ["a", "b"], lineItems: [])
        #expect(try text(FormBody(encoding: plain).makeContent(context: context)) == "expand=a&expand=b")
    }

    @Test(
        "A form refuses a nested key that is empty or holds a bracket, which no bracketed name carries",
        arguments: ["", "a[b", "a]", "[0]"]
    )
    func formRefusesBracketKeys(key: String) throws {
        struct Charge: Encodable, Sendable { var metadata: [String: String] }

        let error = #expect(throws: EncodingError.self) {
            try FormBody(encoding: Charge(metadata: [key: "v", "plain": "w"])).makeContent(context: context)
        }

        guard case .invalidValue(_, let details) = error else { return }
        #expect(details.debugDescription.contains("`metadata` has a key that is empty or holds a bracket"))
    }

    @Test("A form from a value that is not keyed is an error")
    func formNotKeyed() throws {
        #expect(throws: EncodingError.self) { try FormBody(encoding: [1, 2]).makeContent(context: context) }
    }

    @Test("Multipart text fields and in-memory files are framed exactly")
    func multipartInMemory() throws {
        let body = MultipartBody([
            .field("title", "Hi \"there\"\r\n"),
            .file("doc", filename: "a\"b.txt", contentType: "text/plain", data: Data("line 1\nline 2".utf8)),
        ])

        let content = try body.makeContent(context: context)

        let contentType = try #require(content.contentType)
        let boundary = try #require(contentType.components(separatedBy: "boundary=").last)
        #expect(contentType.hasPrefix("multipart/form-data; boundary=EndpointKit-"))
        let expected =
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nHi \"there\"\r\n\r\n"
            + "--\(boundary)\r\nContent-Disposition: form-data; name=\"doc\"; filename=\"a%22b.txt\"\r\n"
            + "Content-Type: text/plain\r\n\r\nline 1\nline 2\r\n--\(boundary)--\r\n"
        #expect(try text(content) == expected)
    }

    @Test("A line break followed by a combining mark in a field name is escaped too (found by fuzzing)")
    func multipartNameWithCombiningMark() throws {
        // "\n\u{31A}" is one Character that is not "\n": a Character-based replace sent the line break as is, so
        // a name could add a header line to its part.
        let body = MultipartBody([.field("a\n\u{31A}X-Injected: 1", "v")])

        let content = try body.makeContent(context: context)

        let lines = try text(content).components(separatedBy: "\r\n")
        #expect(lines[1] == "Content-Disposition: form-data; name=\"a%0A\u{31A}X-Injected: 1\"")
        #expect(lines[2] == "")
    }

    @Test("Each multipart body gets a fresh random boundary")
    func freshBoundary() throws {
        let body = MultipartBody([.field("a", "b")])

        let first = try body.makeContent(context: context).contentType
        let second = try body.makeContent(context: context).contentType

        #expect(first != second)
    }

    @Test("A file part is streamed into a temporary file that holds the exact bytes")
    func multipartFile() throws {
        let source = FileManager.default.temporaryDirectory.appendingPathComponent("ek-part-\(UUID().uuidString).bin")
        let bytes = Data((0..<(3 * MultipartBody.chunkSize + 17)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try bytes.write(to: source)
        defer { try? FileManager.default.removeItem(at: source) }

        let content = try MultipartBody([.field("k", "v"), .file("upload", fileURL: source)])
            .makeContent(context: context)

        guard case .temporaryFile(let file) = content.source else {
            Issue.record("expected a temporary file")
            return
        }
        defer { try? FileManager.default.removeItem(at: file) }
        let written = try Data(contentsOf: file)
        let boundary = try #require(content.contentType?.components(separatedBy: "boundary=").last)
        let header = Data(
            ("--\(boundary)\r\nContent-Disposition: form-data; name=\"upload\"; filename=\"\(source.lastPathComponent)\""
                + "\r\nContent-Type: application/octet-stream\r\n\r\n").utf8
        )
        let start = try #require(written.range(of: header)).upperBound
        #expect(written[start..<(start + bytes.count)] == bytes)
        #expect(written.suffix(boundary.utf8.count + 8) == Data("\r\n--\(boundary)--\r\n".utf8))
    }

    @Test("A missing file part is an error that names the file")
    func multipartMissingFile() throws {
        let missing = URL(fileURLWithPath: "/nonexistent/endpointkit/file.bin")

        let error = try #require(throws: MultipartError.self) {
            try MultipartBody([.file("f", fileURL: missing)]).makeContent(context: context)
        }

        #expect(error.description.contains("/nonexistent/endpointkit/file.bin"))
    }

    @Test("A part content type with a line break is refused")
    func multipartBadContentType() throws {
        #expect(throws: MultipartError.self) {
            try MultipartBody([.file("f", filename: "x", contentType: "text/plain\r\nX: y", data: Data())])
                .makeContent(context: context)
        }
    }

    @Test("Raw data keeps its bytes and content type; a file body streams from its file")
    func dataAndFile() throws {
        let data = Data([0, 1, 2, 255])
        let content = try DataBody(data, contentType: "image/png").makeContent(context: context)
        let file = URL(fileURLWithPath: #filePath)
        let fileContent = try FileBody(file, contentType: "text/x-swift").makeContent(context: context)

        guard case .data(let sent) = content.source, case .file(let sentFile) = fileContent.source else {
            Issue.record("unexpected sources")
            return
        }
        #expect(sent == data)
        #expect(content.contentType == "image/png")
        #expect(sentFile == file)
    }

    @Test("A missing file body fails the call with encodingFailed before sending")
    func missingFileBody() throws {
        let endpoint = Endpoint<EndpointKinds.Public, EmptyResponse>(
            method: .put,
            path: "x",
            body: FileBody(URL(fileURLWithPath: "/nonexistent/endpointkit.bin"))
        )

        let error = try #require(throws: EndpointError.self) {
            try endpoint.makeRequest(in: Fixture.environment, with: ())
        }

        #expect(error.kind == .encodingFailed)
    }

    @Test("A stream body becomes the request's body stream, with no Content-Length")
    func streamBody() throws {
        let endpoint = Endpoint<EndpointKinds.Public, EmptyResponse>(
            method: .post,
            path: "x",
            body: StreamBody(contentType: "text/plain") { InputStream(data: Data("abc".utf8)) }
        )

        let request = try endpoint.makeRequest(in: Fixture.environment, with: ())

        #expect(request.httpBodyStream != nil)
        #expect(request.httpBody == nil)
        #expect(request.value(forHTTPHeaderField: "Content-Length") == nil)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "text/plain")
    }
}
