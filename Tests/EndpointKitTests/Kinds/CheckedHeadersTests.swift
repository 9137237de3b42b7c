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

/// A user-written kind that overrides headers only the transport may set, as request smuggling would.
enum HostOverriding: EndpointKind {
    static func prepare(_ request: inout URLRequest, with _: Void) throws {
        request.setValue("evil.example", forHTTPHeaderField: "Host")
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

    @Test("A request whose kind set Host is refused when it is built, before anything is sent")
    func kindSetsHost() async throws {
        let transport = StubTransport(replies: [.json("[]")])
        let client = EndpointClient(environment: Fixture.environment, transport: transport)
        let endpoint = Endpoint<HostOverriding, [Item]>(path: "items")

        let built = try #require(throws: EndpointError.self) {
            try endpoint.makeRequest(in: Fixture.environment, with: ())
        }
        let sent = try await #require(throws: EndpointError.self) { try await client.response(for: endpoint) }

        #expect(built.kind == .invalidRequest)
        #expect(sent.kind == .invalidRequest)
        #expect(await transport.transportRequests.isEmpty)
    }

    @Test("A kind cannot set a header only the transport may set")
    func managed() throws {
        var request = URLRequest(url: Fixture.baseURL)

        #expect(throws: HTTPHeaders.InvalidHeaderError.self) { try request.setCheckedValue("0", for: .contentLength) }
    }
}
