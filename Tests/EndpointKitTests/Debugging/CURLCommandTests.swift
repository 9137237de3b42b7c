import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(1))) struct CURLCommandTests {
    @Test("A request becomes a quoted curl command with secrets redacted")
    func redacted() throws {
        let request = try Endpoint.search(for: "it's").makeRequest(in: Fixture.environment, with: AccessToken("s3cret"))

        let command = CURLCommand(request).command

        #expect(
            command
                == "curl -X 'GET' 'https://api.test/v1/search?q=it%27s' -H 'Accept: application/json' "
                + "-H 'Authorization: <redacted>' -H 'User-Agent: EndpointKit/\(RequestDefaults.libraryVersion)'"
        )
    }

    @Test("Secrets are shown only on request")
    func revealing() throws {
        let request = try Endpoint.search(for: "x").makeRequest(in: Fixture.environment, with: AccessToken("s3cret"))

        #expect(CURLCommand(request, revealingSecrets: true).command.contains("Authorization: Bearer s3cret"))
    }

    @Test("Header names a user marks sensitive are redacted too")
    func userSensitive() throws {
        var endpoint = Endpoint.featuredItems
        endpoint.headers["X-Session"] = "abc123"

        let command = CURLCommand(
            try endpoint.makeRequest(in: Fixture.environment, with: ()),
            sensitiveHeaders: ["x-session"]
        )

        #expect(!command.command.contains("abc123"))
    }

    @Test("Single quotes in a body are escaped for the shell")
    func quoting() {
        #expect(CURLCommand.quoted("it's") == #"'it'\''s'"#)
        #expect(CURLCommand.quotedBody(Data("{\"a\": \"b'c\"}".utf8)) == #"'{"a": "b'\''c"}'"#)
    }

    @Test("A quote followed by a combining mark is escaped too (found by fuzzing)")
    func quoteWithCombiningMark() {
        // "'\u{301}" is one Character that is not "'": a Character-based replace left the quote in place, which
        // ended the quoted argument and handed the rest of the text to the shell.
        let quoted = CURLCommand.quoted("x'\u{301}; touch pwned")

        #expect(quoted == "'x'\\''\u{301}; touch pwned'")
    }

    @Test("A text body starting with @ is sent through printf, since curl reads @name as a file (found by fuzzing)")
    func bodyStartingWithAt() {
        #expect(CURLCommand.quotedBody(Data("@/etc/passwd".utf8)) == "@<(printf '@/etc/passwd')")
        #expect(CURLCommand.quotedBody(Data("a@b".utf8)) == "'a@b'")
    }

    @Test("A binary body is read from printf with octal escapes, NUL bytes included")
    func binaryBody() {
        #expect(
            CURLCommand.quotedBody(Data([0x00, 0x41, 0x27, 0x5C, 0x25, 0xFF])) == #"@<(printf '\000A\047\134\045\377')"#
        )
    }

    @Test("A HEAD request uses --head, a file body --data-binary @file")
    func headAndFile() throws {
        var request = URLRequest(url: try #require(URL(string: "https://api.test/x")))
        request.httpMethod = "HEAD"
        var upload = URLRequest(url: try #require(URL(string: "https://api.test/x")))
        upload.httpMethod = "PUT"

        #expect(CURLCommand(request).command == "curl --head 'https://api.test/x'")
        #expect(
            CURLCommand(upload, bodyFileURL: URL(fileURLWithPath: "/tmp/a b.bin")).command
                == "curl -X 'PUT' 'https://api.test/x' --data-binary '@/tmp/a b.bin'"
        )
    }

    @Test("A failed call's error carries the redacted curl command")
    func inError() async throws {
        let transport = StubTransportForCURL()
        let client = EndpointClient(environment: Fixture.environment, transport: transport)

        let error = try await #require(throws: EndpointError.self) {
            try await client.response(for: .search(for: "tea"), using: AccessToken("s3cret"))
        }

        let command = try #require(error.curlCommand)
        #expect(command.hasPrefix("curl -X 'GET' 'https://api.test/v1/search?q=tea'"))
        #expect(!command.contains("s3cret"))
    }
}

/// Answers every request with a 500.
private struct StubTransportForCURL: Transport {
    func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse {
        TransportResponse(statusCode: 500)
    }
}
