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
}
