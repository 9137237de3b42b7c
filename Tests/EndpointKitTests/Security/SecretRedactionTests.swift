import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

private enum Role: String, Decodable { case admin, user }
private struct Account: Decodable { var role: Role }

extension String.UnicodeScalarView {
    /// Whether `needle` occurs here, compared scalar by scalar.
    fileprivate func containsSequence(_ needle: String.UnicodeScalarView) -> Bool {
        let haystack = Array(self)
        let needle = Array(needle)
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains {
            haystack[$0..<($0 + needle.count)].elementsEqual(needle)
        }
    }
}

/// Everything a person could print of `value`: interpolation and `dump`.
private func printedForms(of value: Any) -> String {
    var dumped = ""
    dump(value, to: &dumped)
    return "\(value)\n\(dumped)"
}

@Suite(.timeLimit(.minutes(1))) struct SecretRedactionTests {
    @Test("A token the server echoes in an error body appears in no printed form of the error")
    func echoedToken() async throws {
        let transport = StubTransport { request in
            .json(#"{"error": "token \#(request.headers[.authorization] ?? "") is revoked"}"#, status: 403)
        }
        let client = EndpointClient(environment: Fixture.environment, transport: transport)

        let error = try await #require(throws: EndpointError.self) {
            try await client.response(for: .search(for: "tea"), using: AccessToken("s3cret-token-1"))
        }

        #expect(error.statusCode == 403)
        #expect(error.bodySnippet?.contains("is revoked") == true)
        #expect(!printedForms(of: error).contains("s3cret-token-1"))
        #expect(error.bodySnippet?.contains("s3cret-token-1") == false)
        #expect(error.curlCommand?.contains("s3cret-token-1") == false)
    }

    @Test("An echoed token followed by a combining mark is still redacted (found by fuzzing)")
    func echoedTokenWithCombiningMark() async throws {
        // "1\u{301}" is one Character, so a Character-based search does not find "…-1" in "…-1\u{301}".
        let transport = StubTransport { request in
            .json(#"{"error": "\#(request.headers[.authorization] ?? "")\#u{301} is revoked"}"#, status: 403)
        }
        let client = EndpointClient(environment: Fixture.environment, transport: transport)

        let error = try await #require(throws: EndpointError.self) {
            try await client.response(for: .search(for: "tea"), using: AccessToken("s3cret-token-1"))
        }

        #expect(error.bodySnippet?.contains("is revoked") == true)
        #expect(!printedForms(of: error).unicodeScalars.containsSequence("s3cret-token-1".unicodeScalars))
    }

    @Test("A body snippet cut inside an echoed token shows no part of it (found by fuzzing)")
    func snippetCutInsideToken() async throws {
        let token = "s3cret-token-0123456789"
        // The snippet keeps 512 bytes; the token starts 10 bytes before its end.
        let body = String(repeating: "x", count: 502) + token + String(repeating: "y", count: 100)
        let transport = StubTransport { _ in .response(TransportResponse(statusCode: 500, data: Data(body.utf8))) }
        let client = EndpointClient(environment: Fixture.environment, transport: transport)

        let error = try await #require(throws: EndpointError.self) {
            try await client.response(for: .search(for: "tea"), using: AccessToken(token))
        }

        let snippet = try #require(error.bodySnippet)
        #expect(snippet.hasSuffix("x<redacted>…"))
        #expect(!printedForms(of: error).contains("s3cret-tok"))
    }

    @Test("A token a middleware added and the server echoes after a refresh is redacted too")
    func echoedRefreshedToken() async throws {
        let transport = StubTransport { request in
            .json(#"{"rejected": "\#(request.headers[.authorization] ?? "")"}"#, status: 401)
        }
        let auth = BearerAuthentication(
            token: { AccessToken("old-token-22") },
            refresh: { _ in AccessToken("new-token-33") }
        )
        let client = EndpointClient(environment: Fixture.environment, transport: transport, middleware: [auth])
        let profile = Endpoint<EndpointKinds.Authenticated, Item>(path: "me")

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: profile) }

        #expect(error.kind == .authenticationFailed)
        #expect(!printedForms(of: error).contains("new-token-33"))
        #expect(!printedForms(of: error).contains("old-token-22"))
    }

    @Test("A decoding failure that quotes a secret value shows it in no printed form")
    func decodingQuotesSecret() async throws {
        let transport = StubTransport(replies: [.json(#"{"role": "sup3r-s3cret"}"#)])
        let client = EndpointClient(environment: Fixture.environment, transport: transport)
        let endpoint = Endpoint<EndpointKinds.Private, Account>(path: "account")

        let error = try await #require(throws: EndpointError.self) {
            try await client.response(for: endpoint, using: AccessToken("sup3r-s3cret"))
        }

        #expect(error.kind == .decodingFailed)
        #expect(!printedForms(of: error).contains("sup3r-s3cret"))
    }

    @Test("Server bytes with line breaks cannot forge extra lines in the one-line description")
    func forgedLines() async throws {
        let transport = StubTransport(replies: [
            .json("{\"a\":1}\n2026-11-23 ERROR forged entry\r\nmore", status: 500)
        ])
        let client = EndpointClient(environment: Fixture.environment, transport: transport)

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: .item(1)) }

        #expect(!error.description.contains("\n"))
        #expect(!error.description.contains("\r"))
        #expect(error.description.contains("forged entry"))
    }

    @Test("Headers, endpoints, environments, defaults and requests dump without their secrets")
    func dumps() throws {
        var headers: HTTPHeaders = [.authorization: "Bearer dump-s3cret", "X-Api-Key": "dump-s3cret"]
        headers["Accept"] = "application/json"
        var endpoint = Endpoint<EndpointKinds.Public, Item>(
            path: "items",
            queryItems: [URLQueryItem(name: "api_key", value: "dump-s3cret")]
        )
        endpoint.headers = headers
        let base = try #require(URL(string: "https://user:dump-s3cret@api.test/v1?token=dump-s3cret"))
        let environment = ServerEnvironment(baseURL: base, headers: headers, queryItems: endpoint.queryItems)
        var defaults = RequestDefaults()
        defaults.headers[.authorization] = "Bearer dump-s3cret"
        let request = TransportRequest(url: base, headers: headers)

        for value in [headers, endpoint, environment, defaults, request] as [Any] {
            #expect(!printedForms(of: value).contains("dump-s3cret"), "\(type(of: value)) showed a secret")
        }
        #expect(printedForms(of: headers).contains("application/json"))
    }
}
