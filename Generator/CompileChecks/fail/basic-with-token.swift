// expected-error: cannot convert value of type 'AccessToken' to expected argument type 'BasicCredentials'
// A basic scheme takes BasicCredentials, not a token.
func call() async throws { _ = try await client.response(for: .deleteThing(thingId: 1), using: token) }
