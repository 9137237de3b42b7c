// An API key in a header is a generated kind: sent with the key.
func call() async throws { _ = try await client.response(for: .listThingsWithHeaderKey(), using: token) }
