// Every call site in the README and the core issue, with the data each kind needs: must type-check.
import EndpointKit
import Foundation

func callSites() async throws {
    let enveloped = EndpointClient(environment: environment, envelope: .networkResponse)
    let featured: [Item] = try await client.response(for: .featuredItems)
    let results = try await client.response(for: .search(for: "swift"), using: AccessToken("s3cr3t"))
    for try await results in client.publisher(for: .search(for: "swift"), using: AccessToken("s3cr3t")) {
        print(results.items.count)
    }
    let loader = ModelLoader<Item>(client: client) { id in .item(id) }
    let item = try await loader.loadModel(withID: 42)
    for try await item in loader.publisher(forID: 42) { print(item.name) }
    _ = try await client.response(for: .purge(42), using: AdminToken(value: "root"))
    _ = try await enveloped.response(for: .featuredItems)
    print(featured, results, item)
}
