// Box: every operation needs OAuth 2.0 (a bearer token).
func call() async throws { _ = try await client.response(for: .getFilesId(fileId: "12345"), using: token) }
