import EndpointKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(1)))
struct RequestsIntegrationTests {
    @Test("Every method with a body reaches httpbin as itself", arguments: ["POST", "PUT", "PATCH", "DELETE"])
    func methodsWithBody(method: String) async throws {
        let client = try TestServers.httpbinClient()

        let echo = try await client.response(
            for: .anything(HTTPMethod(method), body: DataBody(Data("payload".utf8), contentType: "text/plain"))
        )

        #expect(echo.method == method)
        #expect(echo.data == "payload")
    }

    @Test("GET, HEAD, OPTIONS and a custom token method are sent as themselves")
    func methodsWithoutBody() async throws {
        let client = try TestServers.httpbinClient()
        let echoClient = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.echo()))

        let get = try await client.response(for: .anything(.get))
        let head = try await client.rawResponse(
            for: Endpoint<EndpointKinds.Public, EmptyResponse>(
                method: .head,
                path: "anything"
            ),
            using: ()
        )
        let options = try await client.rawResponse(
            for: Endpoint<EndpointKinds.Public, EmptyResponse>(
                method: .options,
                path: "anything"
            ),
            using: ()
        )
        let purge = try await echoClient.rawResponse(
            for: Endpoint<EndpointKinds.Public, EmptyResponse>(
                method: "PURGE",
                path: "cache/\("a b")"
            ),
            using: ()
        )

        #expect(get.method == "GET")
        #expect(head.statusCode == 200)
        #expect(head.bytes.isEmpty)
        #expect(options.headers["Allow"]?.contains("PATCH") == true)
        #expect(String(decoding: purge.bytes, as: UTF8.self) == "PURGE /cache/a%20b")
    }

    @Test("A JSON body arrives byte for byte with its content type")
    func jsonBody() async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.httpbin()),
            defaults: RequestDefaults(encoder: encoder)
        )
        let item = Item(id: 1, name: "Grüner Tee \"fresh\" + more")

        let echo = try await client.response(for: .anything(.post, body: JSONBody(item)))

        #expect(echo.data == String(decoding: try encoder.encode(item), as: UTF8.self))
        #expect(echo.headers["Content-Type"] == "application/json")
        #expect(echo.json == .object(["id": .number(1), "name": .string("Grüner Tee \"fresh\" + more")]))
    }

    @Test("A form from pairs arrives as the same fields")
    func formBody() async throws {
        let client = try TestServers.httpbinClient()

        let echo = try await client.response(
            for: .anything(.post, body: FormBody(["user": "ann+bob", "password": "p&ss=w0rd ü", "ids": [1, 2]]))
        )

        #expect(echo.headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(echo.form["user"]?.text == "ann+bob")
        #expect(echo.form["password"]?.text == "p&ss=w0rd ü")
        #expect(echo.form["ids"]?.texts == ["1", "2"])
    }

    @Test("A form with indexed lists arrives as Stripe-style bracketed fields, each item under its own index")
    func indexedFormBody() async throws {
        struct Order: Encodable, Sendable {
            var expand: [String]
            var items: [[String: String]]
        }
        let client = try TestServers.httpbinClient()
        let order = Order(expand: ["customer", "invoice"], items: [["price": "p 1"], [:], ["price": "p&2"]])

        let echo = try await client.response(for: .anything(.post, body: FormBody(encoding: order, lists: .indexed)))

        #expect(echo.form["expand[0]"]?.text == "customer")
        #expect(echo.form["expand[1]"]?.text == "invoice")
        #expect(echo.form["items[0][price]"]?.text == "p 1")
        #expect(echo.form["items[1][price]"]?.text == "p&2")
        #expect(echo.form.count == 4)
    }

    @Test(
        "Bodies are stored by nginx byte for byte",
        arguments: [
            ("json", JSONBody(["name": "Grüner \"Tee\""]) as any RequestBody, #"{"name":"Grüner \"Tee\""}"#),
            ("form", FormBody(["a": "1 + 1", "b": "x&y=z"]), "a=1%20%2B%201&b=x%26y%3Dz"),
            ("data", DataBody(Data("raw\r\nbytes ✓".utf8)), "raw\r\nbytes ✓"),
            ("stream", StreamBody { InputStream(data: Data("streamed ✓".utf8)) }, "streamed ✓"),
        ]
    )
    func storedBytes(kind: String, body: any RequestBody, expected: String) async throws {
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.nginx()))
        let name = "\(kind)-\(UUID().uuidString)"

        _ = try await client.response(
            for: Endpoint<EndpointKinds.Public, EmptyResponse>(method: .put, path: "uploads/\(name)", body: body)
        )
        let stored = try await client.rawResponse(
            for: Endpoint<EndpointKinds.Public, EmptyResponse>(path: "uploads/\(name)"),
            using: ()
        )

        #expect(stored.bytes == Data(expected.utf8))
    }

    @Test("A form from an Encodable arrives with the client's key strategy")
    func formEncodable() async throws {
        struct Login: Encodable, Sendable {
            var userName: String
            var rememberMe: Bool
        }
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.httpbin()),
            defaults: RequestDefaults(encoder: encoder)
        )

        let echo = try await client.response(
            for: .anything(.post, body: FormBody(encoding: Login(userName: "ann", rememberMe: true)))
        )

        #expect(echo.form["user_name"]?.text == "ann")
        #expect(echo.form["remember_me"]?.text == "true")
    }

    @Test("Multipart fields and files, from memory and from disk, arrive intact")
    func multipart() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ek-\(UUID().uuidString).txt")
        let fileText = String(repeating: "line of text ✓\n", count: 20_000)
        try Data(fileText.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let binary = Data((0...255).map { UInt8($0) })
        let client = try TestServers.httpbinClient()

        let echo = try await client.response(
            for: .anything(
                .post,
                body: MultipartBody([
                    .field("title", "Hello \"world\" ü"),
                    .field("empty", ""),
                    .file("notes", filename: "notes.txt", contentType: "text/plain", data: Data("a\r\nb".utf8)),
                    .file("blob", filename: "blob.bin", contentType: "application/octet-stream", data: binary),
                    .file("big", fileURL: file, contentType: "text/plain"),
                ])
            )
        )

        #expect(echo.headers["Content-Type"]?.hasPrefix("multipart/form-data; boundary=EndpointKit-") == true)
        #expect(echo.form["title"]?.text == "Hello \"world\" ü")
        #expect(echo.form["empty"]?.text == "")
        #expect(echo.files["notes"]?.text == "a\r\nb")
        #expect(echo.files["big"]?.text == fileText)
        let blob = try #require(echo.files["blob"]?.text)
        let base64 = try #require(blob.components(separatedBy: "base64,").last)
        #expect(Data(base64Encoded: base64) == binary)
    }

    @Test("Raw data, a file and a stream arrive byte for byte")
    func rawBodies() async throws {
        let text = "raw ✓ body with 'quotes' & symbols"
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ek-\(UUID().uuidString).txt")
        try Data(text.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let client = try TestServers.httpbinClient()

        let data = try await client.response(
            for: .anything(.post, body: DataBody(Data(text.utf8), contentType: "text/plain; charset=utf-8"))
        )
        let fromFile = try await client.response(for: .anything(.put, body: FileBody(file, contentType: "text/plain")))
        let stream = try await client.response(
            for: .anything(.post, body: StreamBody(contentType: "text/plain") { InputStream(data: Data(text.utf8)) })
        )

        #expect(data.data == text)
        #expect(data.headers["Content-Type"] == "text/plain; charset=utf-8")
        #expect(fromFile.data == text)
        #expect(fromFile.headers["Content-Length"] == String(text.utf8.count))
        #expect(stream.data == text)
        #expect(stream.headers["Transfer-Encoding"] == "chunked")
        #expect(stream.headers["Content-Length"] == nil)
    }

    @Test("A multipart upload larger than 50 MB is streamed from disk and stored byte for byte")
    func largeMultipart() async throws {
        let size = 52 * 1024 * 1024 + 123
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ek-large-\(UUID().uuidString).bin")
        try LargeFile.write(size: size, to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.nginx()))
        let name = "uploads/\(UUID().uuidString).multipart"
        let began = Date()

        _ = try await client.response(
            for: Endpoint<EndpointKinds.Public, EmptyResponse>(
                method: .put,
                path: "\(path: EndpointPath(stringLiteral: name))",
                body: MultipartBody([.field("kind", "backup"), .file("archive", fileURL: file)])
            )
        )
        let stored = try await client.rawResponse(
            for: Endpoint<EndpointKinds.Public, EmptyResponse>(path: EndpointPath(stringLiteral: name)),
            using: ()
        )

        let header = Data(
            "Content-Disposition: form-data; name=\"archive\"; filename=\"\(file.lastPathComponent)\"\r\nContent-Type: application/octet-stream\r\n\r\n"
                .utf8
        )
        let start = try #require(stored.bytes.range(of: header)).upperBound
        let original = try Data(contentsOf: file)
        #expect(stored.bytes.count > size)
        #expect(stored.bytes[start..<(start + size)] == original)
        // Other suites running at the same time make small multipart files of their own: only one as large as
        // this upload, made since this test began, is this call's.
        let temporary = URL(fileURLWithPath: NSTemporaryDirectory())
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: temporary.path)
            .filter { $0.hasPrefix("endpointkit-multipart-") }
            .filter { name in
                let path = temporary.appendingPathComponent(name).path
                let attributes = try? FileManager.default.attributesOfItem(atPath: path)
                let isLarge = ((attributes?[.size] as? NSNumber)?.intValue ?? 0) > size
                let isNew = (attributes?[.modificationDate] as? Date).map { $0 >= began } ?? false
                return isLarge && isNew
            }
        #expect(leftovers.isEmpty, "the temporary multipart file was not deleted: \(leftovers)")
    }

    @Test("Tricky but valid header values arrive exactly")
    func validHeaderValues() async throws {
        let client = try TestServers.httpbinClient()
        let long = String(repeating: "x", count: 4_000)

        let echo = try await client.response(
            for: .anything(
                .get,
                headers: ["X-Quoted": #"a=b; c="d, e""#, "X-Long": long, "X-Symbols": "!#$%&'*+-.^_`|~"]
            )
        )

        #expect(echo.headers["X-Quoted"] == #"a=b; c="d, e""#)
        #expect(echo.headers["X-Long"] == long)
        #expect(echo.headers["X-Symbols"] == "!#$%&'*+-.^_`|~")
    }

    @Test("Injected header values are refused before sending and leave the connection clean")
    func hostileHeaders() async throws {
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.echo()))
        var hostile = Endpoint<EndpointKinds.Public, EmptyResponse>(path: "first")
        hostile.headers["X-Evil"] = "1\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: x"

        let error = try await #require(throws: EndpointError.self) {
            try await client.rawResponse(for: hostile, using: ())
        }
        let next = try await client.rawResponse(
            for: Endpoint<EndpointKinds.Public, EmptyResponse>(path: "second"),
            using: ()
        )

        #expect(error.kind == .invalidRequest)
        #expect(String(decoding: next.bytes, as: UTF8.self) == "GET /second")
    }

    @Test("Environment headers and query items apply, and an endpoint overrides them")
    func environmentDefaults() async throws {
        let environment = ServerEnvironment(
            baseURL: try TestServers.httpbin(),
            headers: ["X-Environment": "staging", "X-Team": "core"],
            queryItems: [URLQueryItem(name: "api-version", value: "2"), URLQueryItem(name: "lang", value: "en")]
        )
        let client = EndpointClient(environment: environment)

        let defaults = try await client.response(for: .anything(.get))
        let overridden = try await client.response(
            for: .anything(.get, query: [URLQueryItem(name: "lang", value: "de")], headers: ["X-Team": "web"])
        )

        #expect(defaults.headers["X-Environment"] == "staging")
        #expect(defaults.headers["X-Team"] == "core")
        #expect(defaults.args["api-version"]?.text == "2")
        #expect(defaults.args["lang"]?.text == "en")
        #expect(overridden.headers["X-Team"] == "web")
        #expect(overridden.headers["X-Environment"] == "staging")
        #expect(overridden.args["lang"]?.text == "de")
    }

    @Test("An endpoint's timeout is enforced")
    func endpointTimeout() async throws {
        let client = try TestServers.httpbinClient()
        var endpoint = Endpoint<EndpointKinds.Public, EmptyResponse>.delay(seconds: 5)
        endpoint.timeout = .seconds(1)

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: endpoint) }

        #expect(error.kind == .timedOut)
    }

    @Test("A DELETE returning a body decodes to EmptyResponse")
    func deleteEmpty() async throws {
        let client = try TestServers.httpbinClient()

        let response = try await client.response(
            for: Endpoint<EndpointKinds.Public, EmptyResponse>(method: .delete, path: "delete")
        )

        #expect(response == EmptyResponse())
    }
}

/// Writes large files without holding them in memory.
enum LargeFile {
    static func write(size: Int, to url: URL) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var written = 0
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        while written < size {
            let count = min(chunk.count, size - written)
            for index in 0..<count {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                chunk[index] = UInt8(truncatingIfNeeded: state >> 56)
            }
            try handle.write(contentsOf: Data(chunk[0..<count]))
            written += count
        }
    }
}
