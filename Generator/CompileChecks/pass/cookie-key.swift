// An API key in a cookie is a generated kind: sent with the key.
func call() async throws { _ = try await client.response(for: .listThingsWithCookieKey(), using: token) }
