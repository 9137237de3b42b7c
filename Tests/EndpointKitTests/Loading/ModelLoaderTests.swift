import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct ModelLoaderTests {
    @Test("A model is loaded by ID through the endpoint the closure names")
    func loadByID() async throws {
        let transport = StubTransport(replies: [.json(#"{"id": 42, "name": "Towel"}"#)])
        let client = EndpointClient(environment: Fixture.environment, transport: transport)
        let loader = ModelLoader<Item>(client: client) { id in .item(id) }

        let item = try await loader.loadModel(withID: 42)

        #expect(item == Item(id: 42, name: "Towel"))
        #expect(await transport.requests.first?.url?.path == "/v1/items/42")
    }

    @Test("A loader for a private kind sends the request data it was given")
    func privateLoader() async throws {
        let transport = StubTransport(replies: [.json(#"{"id": 7, "name": "Key"}"#)])
        let client = EndpointClient(environment: Fixture.environment, transport: transport)
        let loader = ModelLoader<Item>(client: client, using: AccessToken("s3cret")) { id in
            Endpoint<EndpointKinds.Private, Item>(path: "private/items/\(id)")
        }

        _ = try await loader.loadModel(withID: 7)

        #expect(await transport.requests.first?.value(forHTTPHeaderField: "Authorization") == "Bearer s3cret")
    }

    @Test("The publisher loads once per iteration")
    func publisher() async throws {
        let transport = StubTransport(replies: [
            .json(#"{"id": 1, "name": "a"}"#), .json(#"{"id": 1, "name": "b"}"#),
        ])
        let loader = ModelLoader<Item>(client: EndpointClient(environment: Fixture.environment, transport: transport)) {
            id in .item(id)
        }

        var names: [String] = []
        for try await item in loader.publisher(forID: 1) { names.append(item.name) }
        for try await item in loader.publisher(forID: 1) { names.append(item.name) }

        #expect(names == ["a", "b"])
    }

    @Test("Errors keep their context")
    func notFound() async throws {
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: StubTransport(replies: [.json(#"{"error": "missing"}"#, status: 404)])
        )
        let loader = ModelLoader<Item>(client: client) { id in .item(id) }

        let error = try await #require(throws: EndpointError.self) { try await loader.loadModel(withID: 404) }

        #expect(error.kind == .unacceptableStatus)
        #expect(error.statusCode == 404)
    }
}
