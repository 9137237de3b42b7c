// {} OR bearer: the bearer form, sent with a token.
func call() async throws { _ = try await client.response(for: .listThingsOptionally(), using: token) }
