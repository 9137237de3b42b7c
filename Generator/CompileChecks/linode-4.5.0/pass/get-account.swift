// Linode: getAccount needs a personal access token or OAuth (both bearer): sent with a token.
func call() async throws { _ = try await client.response(for: .getAccount(), using: token) }
