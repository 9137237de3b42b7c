import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An API's own error JSON, without an envelope key.
private struct ProblemBody: Error, Decodable, Sendable, Equatable {
    struct Detail: Decodable, Sendable, Equatable {
        var field: String
        var code: String
    }

    var message: String
    var errors: [Detail]?
}

@Suite(.timeLimit(.minutes(1))) struct ErrorBodyTests {
    private func client(_ replies: [StubResponse]) -> EndpointClient {
        EndpointClient(
            environment: Fixture.environment,
            transport: StubTransport(replies: replies),
            validators: [.errorBody(ProblemBody.self)]
        )
    }

    @Test("A 422 with the API's error JSON decodes into its type, and the error stays unacceptableStatus 422")
    func decodedErrorBody() async throws {
        let json = #"{"message": "Validation Failed", "errors": [{"field": "name", "code": "missing"}]}"#
        let client = client([.json(json, status: 422)])

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: .item(1)) }

        #expect(error.kind == .unacceptableStatus)
        #expect(error.statusCode == 422)
        #expect(
            error.serverError(as: ProblemBody.self)
                == ProblemBody(message: "Validation Failed", errors: [.init(field: "name", code: "missing")])
        )
        #expect(error.request?.description.contains("/v1/items/1") == true)
    }

    @Test("A code matching unacceptableStatus where statusCode == 404 keeps matching with a declared error type")
    func matchingStillWorks() async throws {
        let client = client([.json(#"{"message": "Not Found"}"#, status: 404)])

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: .item(1)) }

        switch error.kind {
        case .unacceptableStatus where error.statusCode == 404:
            #expect(error.serverError(as: ProblemBody.self)?.message == "Not Found")
        default:
            Issue.record("a 404 with a declared error type failed as \(error.kind)")
        }
    }

    @Test("A body that is not the declared type fails as before, with no decoded error")
    func undecodableBody() async throws {
        let client = client([
            .response(status: 502, headers: ["Content-Type": "text/html"], body: Data("<h1>Bad gateway</h1>".utf8))
        ])

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: .item(1)) }

        #expect(error.kind == .unacceptableStatus)
        #expect(error.statusCode == 502)
        #expect(error.serverError(as: ProblemBody.self) == nil)
        #expect(error.body == Data("<h1>Bad gateway</h1>".utf8))
    }

    @Test("The whole error body is kept up to 64 KiB, not only the 512-byte snippet")
    func wholeBody() async throws {
        let message = String(repeating: "m", count: 5_000)
        let json = #"{"message": "\#(message)"}"#
        let client = client([.json(json, status: 400)])

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: .item(1)) }

        #expect(error.body == Data(json.utf8))
        #expect(error.bodySnippet?.utf8.count ?? 0 < 600)
        #expect(error.serverError(as: ProblemBody.self)?.message == message)
    }

    @Test("A token the server echoes in the error body is replaced in the kept body too")
    func echoedTokenInBody() async throws {
        let transport = StubTransport { request in
            .json(#"{"message": "bad token \#(request.headers[.authorization] ?? "")"}"#, status: 401)
        }
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: transport,
            validators: [.errorBody(ProblemBody.self)]
        )

        let error = try await #require(throws: EndpointError.self) {
            try await client.response(for: .search(for: "tea"), using: AccessToken("s3cret-token-9"))
        }

        let body = String(decoding: try #require(error.body), as: UTF8.self)
        #expect(body.contains("<redacted>"))
        #expect(!body.contains("s3cret-token-9"))
        #expect(!"\(error)".contains("s3cret-token-9"))
    }

    @Test("A successful response is not read by the error-body validator")
    func successUntouched() async throws {
        let client = client([.json(#"{"id": 1, "name": "ok", "message": "x"}"#)])

        let item = try await client.response(for: .item(1))

        #expect(item.name == "ok")
    }

    @Test(
        "A 401 whose body echoes the Authorization header: the decoded server error and underlyingError hold no token"
    )
    func echoedTokenIsScrubbedBeforeDecoding() async throws {
        let json = #"{"message": "invalid credentials: Bearer s3cr3t-token-value", "errors": []}"#
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: StubTransport(replies: [.json(json, status: 401)]),
            validators: [.errorBody(ProblemBody.self)]
        )

        let error = try await #require(throws: EndpointError.self) {
            try await client.response(for: .search(for: "tea"), using: AccessToken("s3cr3t-token-value"))
        }
        let serverError = try #require(error.serverError(as: ProblemBody.self))

        #expect(serverError.message == "invalid credentials: <redacted>")
        #expect(!String(reflecting: error.underlyingError as Any).contains("s3cr3t"))
        #expect(!error.description.contains("s3cr3t"))
    }

    @Test("A URLError from the transport keeps its code but not the URL with a secret query value in its user info")
    func underlyingURLErrorLosesTheURL() async throws {
        let url = "https://api.test/v1/items?api_key=k3y-s3cr3t-value"
        let failure = URLError(
            .timedOut,
            userInfo: [
                NSURLErrorFailingURLErrorKey: URL(string: url) as Any,
                NSLocalizedDescriptionKey: "timed out asking \(url)",
            ]
        )
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: StubTransport(replies: [.failure(failure)])
        )
        let endpoint = Endpoint<EndpointKinds.Public, Item>(
            path: "items",
            queryItems: [URLQueryItem(name: "api_key", value: "k3y-s3cr3t-value")]
        )

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: endpoint) }
        let underlying = try #require(error.underlyingError as? URLError)

        #expect(underlying.code == .timedOut)
        #expect(!String(reflecting: underlying).contains("k3y-s3cr3t"))
        #expect(!"\(underlying.userInfo)".contains("k3y-s3cr3t"))
    }

    @Test("Any other underlying error whose text holds the token becomes a RedactedError that prints it scrubbed")
    func otherUnderlyingErrorsAreScrubbed() async throws {
        struct EchoingError: Error, CustomStringConvertible {
            var description: String { "rejected Bearer s3cr3t-token-value" }
        }
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: StubTransport(replies: [.failure(EchoingError())])
        )

        let error = try await #require(throws: EndpointError.self) {
            try await client.response(for: .search(for: "tea"), using: AccessToken("s3cr3t-token-value"))
        }
        let redacted = try #require(error.underlyingError as? RedactedError)

        #expect(redacted.typeName == "EchoingError")
        #expect(redacted.description == "rejected <redacted>")
    }
}
