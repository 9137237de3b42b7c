// expected-error: cannot convert value of type 'AccessToken' to expected argument type 'Void'
// A public operation takes no credential: a token given to it is a mistake.
func call() async throws { _ = try await client.response(for: .listPublicThings(), using: token) }
