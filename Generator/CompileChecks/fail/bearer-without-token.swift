// expected-error: requires the types 'AccessToken' and '\(\)' be equivalent
// The document's default (bearer), sent without a token.
func call() async throws { _ = try await client.response(for: .getThing(thingId: 1)) }
