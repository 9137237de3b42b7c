import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(1))) struct EndpointErrorTests {
    func client(_ replies: StubResponse...) -> EndpointClient {
        EndpointClient(environment: Fixture.environment, transport: StubTransport(replies: replies))
    }

    @Test(
        "Statuses outside 2xx are unacceptableStatus errors with status, headers and body",
        arguments: [301, 400, 401, 404, 409, 500, 503]
    )
    func unacceptableStatus(status: Int) async throws {
        let error = try await #require(throws: EndpointError.self) {
            try await client(.json(#"{"error": "bad"}"#, status: status)).response(for: .item(1))
        }

        #expect(error.kind == .unacceptableStatus)
        #expect(error.statusCode == status)
        #expect(error.bodySnippet == #"{"error": "bad"}"#)
        #expect(error.responseHeaders?[.contentType] == "application/json")
        #expect(error.request?.description == "GET https://api.test/v1/items/1")
    }

    @Test("The body snippet is bounded")
    func boundedSnippet() async throws {
        let body = Data(repeating: UInt8(ascii: "x"), count: 10_000)

        let error = try await #require(throws: EndpointError.self) {
            try await client(.response(status: 500, body: body)).response(for: .item(1))
        }

        let snippet = try #require(error.bodySnippet)
        #expect(snippet.hasPrefix(String(repeating: "x", count: EndpointError.bodySnippetLimit)))
        #expect(snippet.utf8.count <= EndpointError.bodySnippetLimit + 3)
    }

    @Test(
        "URLSessionTransport classifies URLErrors, and says which failures are transient",
        arguments: [
            (URLError.Code.timedOut, EndpointError.Kind.timedOut, false),
            (.cancelled, .cancelled, false),
            (.cannotConnectToHost, .transportFailed, true),
            (.notConnectedToInternet, .transportFailed, true),
            (.networkConnectionLost, .transportFailed, true),
            (.badURL, .transportFailed, false),
            (.serverCertificateUntrusted, .secureConnectionFailed, false),
            (.serverCertificateHasBadDate, .secureConnectionFailed, false),
            (.secureConnectionFailed, .secureConnectionFailed, false),
        ]
    )
    func transportFailures(code: URLError.Code, kind: EndpointError.Kind, isTransient: Bool) async throws {
        let error = URLSessionTransport.endpointError(from: URLError(code), afterHead: false)

        #expect(error.kind == kind)
        #expect(error.isTransient == isTransient)
        #expect((error.underlyingError as? URLError)?.code == code)
    }

    @Test("Linux's unknown error with libcurl's SSL message is a secureConnectionFailed; other unknown errors are not")
    func linuxTLSMessages() {
        func linux(_ message: String) -> URLError {
            URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: message])
        }
        let untrusted = URLSessionTransport.endpointError(
            from: linux("SSL certificate problem: unable to get local issuer certificate"),
            afterHead: false
        )
        let wrongHost = URLSessionTransport.endpointError(
            from: linux("SSL: no alternative certificate subject name matches target host name '127.0.0.2'"),
            afterHead: false
        )
        let other = URLSessionTransport.endpointError(from: linux("Failure when receiving data"), afterHead: false)

        #expect(untrusted.kind == .secureConnectionFailed)
        #expect(!untrusted.isTransient)
        #expect(untrusted.message.contains("unable to get local issuer certificate"))
        #expect(wrongHost.kind == .secureConnectionFailed)
        #expect(other.kind == .transportFailed)
    }

    @Test("A body cut short after the head is a transient failure, whatever code Linux gives it")
    func truncatedBody() {
        let unknown = URLSessionTransport.endpointError(from: URLError(.unknown), afterHead: true)
        let short = URLSessionTransport.truncated(received: 10, announced: 100)

        #expect(unknown.kind == .transportFailed)
        #expect(unknown.isTransient)
        #expect(short.kind == .transportFailed)
        #expect(short.isTransient)
        #expect(short.message.contains("10 of 100 bytes"))
    }

    @Test("A transport's own error is kept as the underlying error")
    func customTransportError() async throws {
        struct Unplugged: Error {}

        let error = try await #require(throws: EndpointError.self) {
            try await client(.failure(Unplugged())).response(for: .item(1))
        }

        #expect(error.kind == .transportFailed)
        #expect(error.underlyingError is Unplugged)
    }

    @Test("The description is one line with the context, and never the token or secret query values")
    func descriptionRedacts() async throws {
        let endpoint = Endpoint<EndpointKinds.Private, SearchResults>(
            path: "search",
            queryItems: [URLQueryItem(name: "q", value: "tea"), URLQueryItem(name: "api_key", value: "k-999")]
        )

        let error = try await #require(throws: EndpointError.self) {
            try await client(.json("{\n\"error\": \"denied\"\n}", status: 401))
                .response(for: endpoint, using: AccessToken("s3cr3t"))
        }

        #expect(!error.description.contains("s3cr3t"))
        #expect(!error.description.contains("k-999"))
        #expect(!error.description.contains("\n"))
        #expect(error.description.contains("401"))
        #expect(error.description.contains("q=tea"))
        #expect(error.description.contains("denied"))
    }

    @Test("A URL's password is redacted in the request summary")
    func passwordRedacted() throws {
        let url = try #require(URL(string: "https://user:hunter2@api.test/x?token=abc&q=1"))

        let summary = RequestSummary(URLRequest(url: url))

        #expect(!summary.description.contains("hunter2"))
        #expect(!summary.description.contains("abc"))
        #expect(summary.description.contains("q=1"))
        // As OpenTelemetry's HTTP conventions write a URL's hidden parts.
        #expect(summary.redactedURL == "https://REDACTED:REDACTED@api.test/x?token=REDACTED&q=1")
    }

    @Test(
        "The signatures of presigned URLs (AWS, Google Cloud) are redacted",
        arguments: [
            "AWSAccessKeyId", "Signature", "X-Goog-Signature", "X-Goog-Credential", "X-Amz-Signature", "sig",
        ]
    )
    func presignedURLRedacted(name: String) throws {
        let url = try #require(URL(string: "https://bucket.test/object?\(name)=s3cr3t&Expires=1700000000"))

        let summary = RequestSummary(URLRequest(url: url))

        #expect(summary.redactedURL == "https://bucket.test/object?\(name)=REDACTED&Expires=1700000000")
    }

    @Test("localizedDescription, what an app shows in an alert, says what failed and to which request, without a token")
    func localizedDescriptionIsUseful() async throws {
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: StubTransport(replies: [.json(#"{"error": "bad"}"#, status: 404)])
        )

        let error = try await #require(throws: EndpointError.self) {
            try await client.response(for: .search(for: "tea"), using: AccessToken("s3cr3t-token-value"))
        }
        let shown = (error as any Error).localizedDescription

        #expect(shown == "The server answered 404 Not Found (GET https://api.test/v1/search?q=tea).")
        #expect(error.failureReason == "the server answered 404")
        #expect(!shown.contains("s3cr3t"))
    }

    @Test("A rate limit suggests when to try again, rounded with its unit")
    func rateLimitSuggestion() {
        var error = EndpointError(.rateLimited, "the server asks to wait", statusCode: 429)
        error.retryAfter = .seconds(2.499998718)
        var local = EndpointError(.rateLimited, "the rate limit api has no slot within 5 s")
        local.retryAfter = .seconds(7)

        #expect(error.recoverySuggestion == "Try again in 2.5 s.")
        #expect(error.errorDescription == "The server asked to wait before trying again.")
        // A RateLimiter's own refusal has no status: the server asked nothing.
        #expect(local.errorDescription == "A rate limit held the request back.")
        #expect(local.recoverySuggestion == "Try again in 7 s.")
    }

    @Test("localizedDescription of an error whose message names the missing thing says it: the model's ID, the write")
    func localizedDescriptionNamesWhatIsMissing() {
        let missing = EndpointError(
            .modelNotFound,
            "the batch endpoint's answer has no model with ID 42",
            request: RequestSummary(method: .get, redactedURL: "https://api.example.com/v1/items?ids=1,42")
        )

        #expect(
            missing.localizedDescription
                == "The batch endpoint's answer has no model with ID 42 (GET https://api.example.com/v1/items?ids=1,42)."
        )
        #expect(EndpointError(.writeExpired, "a write waited 8 days").localizedDescription == "A write waited 8 days.")
    }
}
