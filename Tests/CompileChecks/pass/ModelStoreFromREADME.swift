// The model store's forms the README, the CHANGELOG and the Loading models article show: must type-check.
import EndpointKit
import Foundation

func modelStore() async throws {
    let token = AccessToken("s3cr3t")
    let loader = ModelLoader<Item>(client: client, policy: ModelStorePolicy(freshness: .seconds(30))) { id in .item(id)
    }
    let item = try await loader.loadModel(withID: 42)
    let items = try await loader.loadModels(withIDs: [3, 1, 3])
    for try await item in loader.publisher(forID: 42) { _ = item.name }
    for await state in loader.states(forID: 42) { _ = (state.value?.name, state.isLoading, state.error?.kind) }
    loader.invalidate(id: 42)
    loader.invalidate { $0 > 100 }
    loader.invalidateAll()
    loader.put(item)
    loader.put(contentsOf: items)
    let saved = try await loader.update(Item(id: 42, name: "renamed")) { () async throws(EndpointError) -> Item? in
        try await client.response(for: .item(42))
    }
    let batched = ModelLoader<Item>(
        client: client,
        using: token,
        batch: ModelBatch(maximumSize: 50) { ids in
            Endpoint<EndpointKinds.Private, [Item]>(
                path: "items",
                query: ["ids": ids.map(String.init).joined(separator: ",")]
            )
        }
    )
    let persisted = ModelLoader<Item>(
        client: client,
        persistence: try DiskModelPersistence(directory: URL(fileURLWithPath: "/tmp/models"))
    ) { .item($0) }
    _ = (saved, batched, persisted)
}
