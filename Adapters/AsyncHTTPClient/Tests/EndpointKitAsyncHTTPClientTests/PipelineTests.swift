#if AsyncHTTPClient
import EndpointKit
import EndpointKitAsyncHTTPClient
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

private struct StaticItem: Decodable, Equatable {
    var id: Int
    var name: String
}

private struct AuthorizationEcho: Decodable {
    var authorization: String
}

private struct HeadersEcho: Decodable {
    var headers: [String: String]
}

/// Sends a key in `X-Shop-Key`, a header EndpointKit does not know as secret, and declares it.
private enum ShopKeyKind: EndpointKind {
    static let credentialNames = CredentialNames(headers: ["X-Shop-Key"])

    static func prepare(_ request: inout URLRequest, with key: String) throws {
        try request.setCheckedValue(key, for: "X-Shop-Key")
    }
}

/// EndpointClient's guarantees hold through AsyncHTTPClient: the route cannot be changed by input, credentials
/// stay at their origin, TLS is checked, and failures come back typed.
@Suite(.timeLimit(.minutes(1)))
struct PipelineTests {
    private let transport = AsyncHTTPClientTransport()

    @Test(
        "Hostile path segments and query values reach the server exactly as encoded",
        arguments: [
            ("x/admin", "x%2Fadmin", "a+b", "a%2Bb"),
            ("a b", "a%20b", "x&admin=1", "x%26admin%3D1"),
            ("a?b#c", "a%3Fb%23c", "1 + 1 = 2", "1%20%2B%201%20%3D%202"),
            ("100%", "100%25", "über", "%C3%BCber"),
        ]
    )
    func exactPathAndQuery(segment: String, encodedSegment: String, value: String, encodedValue: String)
        async throws
    {
        let client = TestServers.client(try TestServers.echo(), transport)
        let endpoint = Endpoint<EndpointKinds.Public, Data>(
            path: "v1/items/\(segment)/detail",
            queryItems: [URLQueryItem(name: "q", value: value)]
        )

        let line = String(decoding: try await client.response(for: endpoint), as: UTF8.self)

        #expect(line == "GET /v1/items/\(encodedSegment)/detail?q=\(encodedValue)")
    }

    @Test("A HEAD of a body larger than the size limit succeeds with its headers: there is no body to refuse")
    func headOfALargeBody() async throws {
        let size = 4 << 20
        var defaults = RequestDefaults()
        defaults.maximumResponseSize = 1 << 20
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.nginx()),
            transport: transport,
            defaults: defaults
        )
        let path = EndpointPath(stringLiteral: "uploads/ahc-head-\(UUID().uuidString)")
        _ = try await client.response(
            for: Endpoint<EndpointKinds.Public, EmptyResponse>(
                method: .put,
                path: path,
                body: DataBody(Data(count: size))
            )
        )

        let response = try await client.exchange(
            for: Endpoint<EndpointKinds.Public, EmptyResponse>(method: .head, path: path)
        )

        #expect(response.statusCode == 200)
        #expect(response.headers["Content-Length"] == String(size))
    }

    @Test("A cross-origin redirect is followed by EndpointClient, without the token")
    func crossOriginRedirectDropsCredentials() async throws {
        let key = UUID().uuidString
        let counters = try Counters()
        let client = TestServers.client(try TestServers.fault(), transport)

        let response = try await client.exchange(
            for: Endpoint<EndpointKinds.Private, Data>(path: "file-redirect/\(key)/1"),
            using: AccessToken("s3cr3t")
        )

        #expect(response.url?.host == "localhost")
        #expect(response.value.count == 1 << 20)
        #expect(try await counters.count("file", key) == 1)
        #expect(try await counters.count("file-auth", key) == 0)
    }

    @Test("A kind's declared credential header goes to its origin, and not to another one a redirect leads to")
    func kindCredentialCrossOrigin() async throws {
        let httpbin = try TestServers.httpbin()
        var components = try #require(URLComponents(url: httpbin, resolvingAgainstBaseURL: false))
        components.host = "localhost"
        components.path = "/headers"
        let otherOrigin = try #require(components.url)
        let client = TestServers.client(httpbin, transport)
        let redirected = Endpoint<ShopKeyKind, HeadersEcho>(
            path: "redirect-to",
            queryItems: [URLQueryItem(name: "url", value: otherOrigin.absoluteString)]
        )

        let there = try await client.response(for: redirected, using: "k-123")
        let here = try await client.response(for: Endpoint<ShopKeyKind, HeadersEcho>(path: "headers"), using: "k-123")

        #expect(there.headers["Host"]?.hasPrefix("localhost") == true)
        #expect(there.headers["X-Shop-Key"] == nil)
        #expect(here.headers["X-Shop-Key"] == "k-123")
    }

    @Test("A private endpoint over https to a trusted server carries its token")
    func trustedTLS() async throws {
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.https()),
            transport: transport,
            envelope: .plain
        )

        let item = try await client.response(
            for: Endpoint<EndpointKinds.Public, NetworkResponse<StaticItem>>(path: "item.json")
        )
        let echo = try await client.response(
            for: Endpoint<EndpointKinds.Private, AuthorizationEcho>(path: "authorization"),
            using: AccessToken("s3cr3t")
        )

        #expect(item.result == StaticItem(id: 7, name: "static"))
        #expect(echo.authorization == "Bearer s3cr3t")
    }

    @Test("A server whose certificate is not trusted fails as secureConnectionFailed, never retried")
    func untrustedTLS() async throws {
        let client = TestServers.client(try TestServers.untrustedHTTPS(), transport)

        let error = try await #require(throws: EndpointError.self) {
            try await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "item.json"))
        }

        #expect(error.kind == .secureConnectionFailed)
        #expect(error.attempts == 1)
    }

    @Test("A refused connection fails at once as a transient transportFailed")
    func refusedConnection() async throws {
        // Port 1 (tcpmux) is not served on loopback.
        let closed = try #require(URL(string: "http://127.0.0.1:1"))
        let client = EndpointClient(environment: ServerEnvironment(baseURL: closed), transport: transport)

        let error = try await #require(throws: EndpointError.self) {
            try await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "x"))
        }

        #expect(error.kind == .transportFailed)
        #expect(error.isTransient)
    }

    @Test("A POST on a keep-alive connection the server drops reaches the server once, and a failure is transient")
    func postIsSentOnce() async throws {
        let key = UUID().uuidString
        let counters = try Counters()
        let client = TestServers.client(try TestServers.fault(), transport)
        let post = Endpoint<EndpointKinds.Public, Data>(
            method: .post,
            path: "drop-reused/\(key)",
            body: DataBody(Data("once".utf8))
        )

        // The first request leaves a keep-alive connection, on which the server answers nothing more.
        _ = try await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "echo/\(key)"))
        let result: Result<Data, EndpointError>
        do throws(EndpointError) {
            result = .success(try await client.response(for: post))
        } catch {
            result = .failure(error)
        }

        #expect(try await counters.count("drop-reused", key) == 1, "the POST must reach the server exactly once")
        switch result {
        case .success(let echoed): #expect(echoed == Data("once".utf8))
        case .failure(let error):
            #expect(error.kind == .transportFailed)
            #expect(error.isTransient)
        }
    }

    @Test("A body cut short is a transient transportFailed, and the retry gets the whole body")
    func truncatedBodyIsRetried() async throws {
        let key = UUID().uuidString
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.fault()),
            transport: transport,
            middleware: [Retry(RetryPolicy(baseDelay: .milliseconds(10), jitter: 0))]
        )

        let response = try await client.exchange(for: Endpoint<EndpointKinds.Public, Data>(path: "truncated/\(key)"))

        #expect(response.value == Data(repeating: UInt8(ascii: "x"), count: 100))
        #expect(response.attempts == 2)
    }

    @Test("A stalled body fails with timedOut once the idle timeout passes, and the server sees the close")
    func idleTimeout() async throws {
        let key = UUID().uuidString
        let counters = try Counters()
        let client = TestServers.client(try TestServers.fault(), transport)
        var endpoint = Endpoint<EndpointKinds.Public, Data>(path: "stall-body/\(key)")
        endpoint.idleTimeout = .seconds(1)

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: endpoint) }

        #expect(error.kind == .timedOut)
        // The server sent the head and 10 bytes, then held the connection: it sees it closed.
        #expect(try await counters.count("stall-body-sent", key) == 1)
        #expect(try await counters.await("stall-body-closed", key) == 1)
    }

    @Test(
        "The deadline covers a body read whole: a body that stalls after its head fails with timedOut at the deadline"
    )
    func deadlineCoversTheBody() async throws {
        let key = UUID().uuidString
        let counters = try Counters()
        let client = TestServers.client(try TestServers.fault(), transport)
        var endpoint = Endpoint<EndpointKinds.Public, Data>(path: "stall-body/\(key)")
        endpoint.timeout = .seconds(1)  // no idle timeout: only the deadline can end the wait

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: endpoint) }

        #expect(error.kind == .timedOut)
        #expect(error.message.contains("deadline"))
        // The head and 10 bytes arrived before it: the deadline ran past the head, to the body.
        #expect(try await counters.count("stall-body-sent", key) == 1)
        #expect(try await counters.await("stall-body-closed", key) == 1)
    }

    @Test("The endpoint's deadline fails a request the server holds, with timedOut, and the server sees the close")
    func deadline() async throws {
        let key = UUID().uuidString
        let counters = try Counters()
        let client = TestServers.client(try TestServers.fault(), transport)
        var endpoint = Endpoint<EndpointKinds.Public, Data>(path: "hold/\(key)")
        endpoint.timeout = .seconds(2)

        let call = Task { () async throws(EndpointError) -> Data in try await client.response(for: endpoint) }
        // The request reached the server before the deadline: a deadline that fired first would leave nothing to
        // close.
        let arrived = try await counters.await("hold", key)
        let result = await call.result

        #expect(arrived == 1)
        switch result {
        case .success: Issue.record("a request the server never answers succeeded")
        case .failure(let error): #expect((error as? EndpointError)?.kind == .timedOut)
        }
        #expect(try await counters.await("hold-closed", key) == 1)
    }

    @Test(
        "A call cancelled in the middle of the body, or at a redirect's target, ends as cancelled and closes the connection",
        arguments: [("stall-body", "stall-body-sent"), ("redirect", "hold")]
    )
    func cancelledMidway(path: String, reached: String) async throws {
        let key = UUID().uuidString
        let counters = try Counters()
        let client = TestServers.client(try TestServers.fault(), transport)

        let call = Task { () async throws(EndpointError) -> Data in
            try await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "\(path)/\(key)"))
        }
        // The server says where the exchange is: the partial body sent, or the redirect's target reached.
        _ = try await counters.await(reached, key)
        call.cancel()
        let result = await call.result

        switch result {
        case .success(let data): Issue.record("a cancelled call returned \(data.count) bytes")
        case .failure(let error): #expect((error as? EndpointError)?.kind == .cancelled)
        }
        let closed = path == "redirect" ? "hold-closed" : "stall-body-closed"
        #expect(try await counters.await(closed, key) == 1)
    }

    @Test("A compression bomb fails with responseTooLarge by its ratio alone, however high the size limit")
    func compressionBomb() async throws {
        let key = UUID().uuidString
        let counters = try Counters()
        var defaults = RequestDefaults()
        defaults.maximumResponseSize = 4 << 30
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.fault()),
            transport: transport,
            defaults: defaults
        )

        let error = try await #require(throws: EndpointError.self) {
            try await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "bomb/\(key)/1024"))
        }

        #expect(error.kind == .responseTooLarge)
        #expect(error.message.contains("times its compressed size"))
        #expect(try await counters.await("bomb-done", key) == 1)
    }

    @Test(
        "Upload progress is reported as the body goes out, growing to its length, and the body arrives whole",
        arguments: ["data", "file", "stream"]
    )
    func uploadProgress(kind: String) async throws {
        let size = 3 << 20
        let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("progress-\(UUID().uuidString)")
        try bytes.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let log = UploadLog()
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.nginx()),
            transport: transport,
            observers: [log]
        )
        let body: any RequestBody =
            switch kind {
            case "data": DataBody(bytes)
            case "file": FileBody(file)
            default: StreamBody { try #require(InputStream(url: file)) }
            }
        let upload = Endpoint<EndpointKinds.Public, EmptyResponse>(
            method: .put,
            path: "uploads/ahc-progress-\(UUID().uuidString)",
            body: body
        )

        _ = try await client.response(for: upload)
        let stored = try await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: upload.path))

        let sent = log.sent
        #expect(stored == bytes)
        #expect(sent == sent.sorted())
        #expect(sent.last == Int64(size))
        #expect(sent.count > 1)
    }
}

/// The upload progress events of calls.
private final class UploadLog: ExchangeObserver, @unchecked Sendable {
    // Safe because every access to `events` holds `lock`.
    private var events: [Int64] = []
    private let lock = NSLock()

    func observe(_ event: ExchangeEvent) {
        guard case .bytesSent(_, let count, _) = event else { return }
        lock.withLock { events.append(count) }
    }

    var sent: [Int64] { lock.withLock { events } }
}
#endif
