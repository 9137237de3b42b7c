import EndpointKit

// Streamed endpoints declare what their body is, and are read by the call that fits it.
func streamEndpoints() async throws {
    for try await item in try await client.jsonLines(for: .itemFeed, using: AccessToken("s3cr3t")) {
        _ = item.name
    }
    for try await event in client.events(for: .notifications) { _ = event.data }
    let stream = try await client.bytes(for: .itemFeed, using: AccessToken("s3cr3t"))
    for try await _ in stream.lines {}
}
