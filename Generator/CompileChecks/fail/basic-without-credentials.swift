// expected-error: requires the types 'BasicCredentials' and '\(\)' be equivalent
// A basic scheme, sent without credentials.
func call() async throws { _ = try await client.response(for: .deleteThing(thingId: 1)) }
