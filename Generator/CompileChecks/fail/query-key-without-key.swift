// expected-error: requires the types 'AccessToken' and '\(\)' be equivalent
// An API key in a query item, sent without the key.
func call() async throws { _ = try await client.response(for: .listThingsWithQueryKey()) }
