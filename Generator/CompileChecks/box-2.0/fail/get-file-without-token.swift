// expected-error: requires the types 'AccessToken' and '\(\)' be equivalent
// Box: a file, asked for without a token.
func call() async throws { _ = try await client.response(for: .getFilesId(fileId: "12345")) }
