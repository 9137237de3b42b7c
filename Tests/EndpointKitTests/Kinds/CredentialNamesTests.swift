import EndpointKit
import EndpointKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends a key under names EndpointKit does not know as secret: the header `X-Shop-Key` and the query item
/// `shop_key`, both declared.
enum ShopKey: EndpointKind {
    static let credentialNames = CredentialNames(headers: ["X-Shop-Key"], queryItems: ["shop_key"])

    struct Unplaceable: Error {}

    static func prepare(_ request: inout URLRequest, with key: String) throws {
        try request.setCheckedValue(key, for: "X-Shop-Key")
        guard let url = request.url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw Unplaceable()
        }
        components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "shop_key", value: key)]
        request.url = components.url
    }
}

@Suite(.timeLimit(.minutes(1)))
struct CredentialNamesTests {
    static let orders = Endpoint<ShopKey, [String]>(path: "orders")
    static let key = "k-9f3e1"

    @Test("A kind's declared names are redacted in the error, its body, its cURL command and every event")
    func redactedEverywhere() async throws {
        let transport = StubTransport(replies: [.json(#"{"error": "unknown key \#(Self.key)"}"#, status: 401)])
        let log = EventLog()
        let client = EndpointClient(environment: Fixture.environment, transport: transport, observers: [log])

        let error = try await #require(throws: EndpointError.self) {
            try await client.response(for: Self.orders, using: Self.key)
        }

        let sent = try #require(await transport.transportRequests.first)
        #expect(sent.headers["X-Shop-Key"] == Self.key)
        #expect(sent.url.query?.contains("shop_key=\(Self.key)") == true)
        let shown =
            [
                error.description, error.request?.description ?? "", error.curlCommand ?? "",
                error.bodySnippet ?? "", String(decoding: error.body ?? Data(), as: UTF8.self),
            ] + log.all.map(Self.text)
        #expect(shown.count > 5)
        for text in shown { #expect(!text.contains(Self.key), "\(text)") }
        #expect(error.curlCommand?.contains("X-Shop-Key") == true)
    }

    /// `event` as a log prints it, with an exchange's record in full.
    static func text(_ event: ExchangeEvent) -> String {
        guard case .exchangeCompleted(let record) = event else { return "\(event)" }
        return "\(record) \(record.redactedURL) \(record.requestHeaders)"
    }

    @Test("A redirect to another origin drops the kind's header; one at the same origin keeps it")
    func redirects() async throws {
        let transport = StubTransport { request in
            switch (request.url.host, request.url.path) {
            case ("api.test", "/v1/orders"): .response(status: 302, headers: [.location: "https://cdn.test/orders"])
            case ("api.test", "/v1/moved"): .response(status: 302, headers: [.location: "/v1/orders-here"])
            default: .json("[]")
            }
        }
        let client = EndpointClient(environment: Fixture.environment, transport: transport)

        _ = try await client.response(for: Self.orders, using: Self.key)
        _ = try await client.response(for: Endpoint<ShopKey, [String]>(path: "moved"), using: Self.key)

        let sent = await transport.transportRequests
        #expect(sent.map(\.url.host) == ["api.test", "cdn.test", "api.test", "api.test"])
        #expect(sent.map { $0.headers["X-Shop-Key"] } == [Self.key, nil, Self.key, Self.key])
    }

    @Test("The client's cURL command of a kind's endpoint hides the declared header and query item")
    func curl() throws {
        let client = EndpointClient(environment: Fixture.environment, transport: StubTransport(replies: []))

        let command = try client.curlCommand(for: Self.orders, using: Self.key).command
        let revealed = try client.curlCommand(for: Self.orders, using: Self.key, revealingSecrets: true).command

        #expect(!command.contains(Self.key), "\(command)")
        #expect(command.contains("shop_key=REDACTED"))
        #expect(revealed.contains(Self.key))
    }

    @Test("A kind that applies others declares the union of their names")
    func union() {
        let names = ShopKey.credentialNames.union(CredentialNames(headers: ["X-Other"], queryItems: ["other"]))

        #expect(names.headers == ["X-Shop-Key", "X-Other"])
        #expect(names.queryItems == ["shop_key", "other"])
        #expect(EndpointKinds.Public.credentialNames.isEmpty)
    }
}
