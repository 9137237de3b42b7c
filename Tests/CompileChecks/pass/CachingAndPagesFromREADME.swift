// The cache and pagination forms the README, the CHANGELOG and the articles show: must type-check.
import EndpointKit
import Foundation

func cachingAndPages() async throws {
    let token = AccessToken("s3cr3t")
    let persistent = EndpointClient(
        environment: ServerEnvironment(baseURL: URL(fileURLWithPath: "/")),
        cache: HTTPCache(storage: try DiskCacheStorage(directory: URL(fileURLWithPath: "/tmp/api-cache")))
    )
    let uncached = EndpointClient(environment: ServerEnvironment(baseURL: URL(fileURLWithPath: "/")), cache: nil)
    var endpoint = Endpoint.search(for: "tea")
    endpoint.options.cacheDirectives = .revalidate
    endpoint.options.cacheDirectives.maxStale = .seconds(300)
    endpoint.options.isCached = false
    let response = try await persistent.exchange(for: endpoint, using: token)
    let fromCache: Bool = response.source == .cache || response.source == .revalidated

    for try await page in client.pages(for: .search(for: "tea"), using: token, next: .link) {
        _ = (page.value.items.count, page.headers["Link"], page.source)
    }
    for try await item in client.pages(for: .featuredItems, next: .pageNumber { $0.value.isEmpty }).elements {
        _ = item.name
    }
    let cursor = NextPage<EndpointKinds.Private, SearchResults>.cursor(parameter: "after") { $0.items.last?.name }
    let own = NextPage<EndpointKinds.Public, [Item]> { page, endpoint in page.value.isEmpty ? nil : endpoint }
    _ = (uncached, fromCache, cursor, own)
}
