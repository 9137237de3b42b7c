// The six verbs and the forms the README and the CHANGELOG's migration notes show: must type-check.
import EndpointKit
import Foundation

func verbs() async throws {
    let token = AccessToken("s3cr3t")
    let value: [Item] = try await client.response(for: .featuredItems)
    let exchanged: Response<SearchResults> = try await client.exchange(for: .search(for: "tea"), using: token)
    let link = exchanged.headers["Link"]
    for try await items in client.publisher(for: .featuredItems) { _ = items }
    let withHeads = EndpointPublisher { () async throws(EndpointError) in
        try await client.exchange(for: .search(for: "tea"), using: token)
    }
    for try await page in withHeads { _ = page.headers }
    let bytes = try await client.stream(for: .featuredItems)
    for try await line in bytes.lines { _ = line }
    for try await item in try await client.stream(for: .itemFeed, using: token) { _ = item.name }
    for try await event in try await client.stream(for: .notifications) { _ = event.data }
    let file = try await client.download(for: .featuredItems, to: URL(fileURLWithPath: "/tmp/items.json")).result()
    print(try client.curlCommand(for: .search(for: "tea"), using: token))

    var raw = Endpoint.item(7).decoding(as: Data.self)
    raw.options.isValidated = false
    let anyStatus = try await client.exchange(for: raw)
    var endpoint = Endpoint.featuredItems
    endpoint.timeout = .seconds(30)
    endpoint.idleTimeout = .milliseconds(300)
    _ = (value, link, file, anyStatus.statusCode, anyStatus.value.count, endpoint)
}
