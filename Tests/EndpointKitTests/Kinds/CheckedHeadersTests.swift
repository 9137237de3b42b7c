import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A user-written kind that sets its key through the checked setter.
enum CheckedKeyed: EndpointKind {
    static func prepare(_ request: inout URLRequest, with key: APIKey) throws {
        try request.setCheckedValue(key.value, for: "X-API-Key")
    }
}

@Suite(.timeLimit(.minutes(1))) struct CheckedHeadersTests {
    static let partner = Endpoint<CheckedKeyed, [Item]>(path: "partner/items")

    @Test("A kind's checked header is sent as set")
    func sent() async throws {
        let transport = StubTransport(replies: [.json("[]")])
        let client = EndpointClient(environment: Fixture.environment, transport: transport)

        _ = try await client.response(for: Self.partner, using: APIKey(value: "k-123"))

        #expect(await transport.transportRequests.first?.headers["X-API-Key"] == "k-123")
    }

    @Test(
        "A kind's header value with a line break or NUL fails the call instead of going out without it",
        arguments: ["k\r\nX-Injected: 1", "k\n", "k\0"]
    )
    func refused(value: String) async throws {
        let transport = StubTransport(replies: [.json("[]")])
        let client = EndpointClient(environment: Fixture.environment, transport: transport)

        let error = try await #require(throws: EndpointError.self) {
            try await client.response(for: Self.partner, using: APIKey(value: value))
        }

        #expect(error.kind == .invalidRequest)
        #expect(await transport.transportRequests.isEmpty)
        #expect(!error.description.contains("X-Injected"))
    }

    @Test("A kind cannot set a header only the transport may set")
    func managed() throws {
        var request = URLRequest(url: Fixture.baseURL)

        #expect(throws: HTTPHeaders.InvalidHeaderError.self) { try request.setCheckedValue("0", for: .contentLength) }
    }
}
