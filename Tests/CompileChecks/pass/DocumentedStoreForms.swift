// The model store's forms exactly as the doc comments and the Loading models article write them (0.5 showed
// `update(_:sending:)` and `ModelBatch` in forms that did not compile): must type-check.
import EndpointKit
import Foundation

extension Endpoint where Kind == EndpointKinds.Private, Response == Item {
    static func rename(_ item: Item) -> Self {
        Endpoint(method: .patch, path: "items/\(item.id)", body: JSONBody(item))
    }
    static func save(_ item: Item) -> Self { Endpoint(method: .put, path: "items/\(item.id)", body: JSONBody(item)) }
}

func documentedStoreForms() async throws {
    let token = AccessToken("s3cr3t")
    let loader = ModelLoader<Item>(client: client) { id in .item(id) }
    let renamed = Item(id: 42, name: "renamed")
    let edited = renamed
    try await loader.update(renamed) { try await client.response(for: .rename(renamed), using: token) }
    try await loader.update(edited) { try await client.response(for: .save(edited), using: token) }
    try await loader.update(renamed) {
        try await client.response(for: .rename(renamed), using: token)
    }
    let batched = ModelLoader<Item>(
        client: client,
        batch: ModelBatch(maximumSize: 50) { ids in
            let list = ids.map(String.init).joined(separator: ",")
            return Endpoint<EndpointKinds.Public, [Item]>(path: "items", query: ["ids": list])
        }
    )
    let article = ModelLoader<Item>(
        client: client,
        batch: ModelBatch(maximumSize: 100) { ids in
            Endpoint<EndpointKinds.Public, [Item]>(
                path: "items",
                query: ["ids": ids.map(String.init).joined(separator: ",")]
            )
        }
    )
    _ = article
    let results = await batched.loadModelResults(withIDs: [1, 2, 3])
    _ = results.compactMap { try? $0.get() }
}
