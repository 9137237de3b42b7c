// An API key in a query item is a generated kind: sent with the key.
func call() async throws { _ = try await client.response(for: .listThingsWithQueryKey(), using: token) }
