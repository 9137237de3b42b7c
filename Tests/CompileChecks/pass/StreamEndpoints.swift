import EndpointKit

// Streamed endpoints declare what their body is, and `stream(for:)` reads it as that: JSON Lines as decoded
// elements, Server-Sent Events as events, and anything as bytes with its head when that is the type asked for.
func streamEndpoints() async throws {
    for try await item in try await client.stream(for: .itemFeed, using: AccessToken("s3cr3t")) {
        _ = item.name
    }
    for try await event in try await client.stream(for: .notifications) { _ = event.data }
    let stream: StreamedResponse = try await client.stream(for: .itemFeed, using: AccessToken("s3cr3t"))
    _ = stream.headers
    for try await _ in stream.lines {}
    let items = try await client.stream(for: .featuredItems)
    for try await _ in items.lines {}
}

// Without a type to fit, the endpoint's response type picks the reading: events and elements, not bytes.
func streamEndpointsInferred() async throws {
    let events = try await client.stream(for: .notifications)
    let typedEvents: ServerSentEvents = events
    let items = try await client.stream(for: .itemFeed, using: AccessToken("s3cr3t"))
    let typedItems: JSONLineSequence<Item> = items
    _ = (typedEvents, typedItems)
}
