// expected-error: requires the types 'AccessToken' and '\(\)' be equivalent
// OAuth 2.0, sent without a token.
func call() async throws { _ = try await client.response(for: .listThingsWithOAuth()) }
