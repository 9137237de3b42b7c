// expected-error: cannot convert value of type 'AccessToken' to expected argument type 'SecurityKinds.BearerAuthAndHeaderKey.Credentials'
// header key AND bearer: one token is not both credentials.
func call() async throws { _ = try await client.response(for: .listThingsWithBoth(), using: token) }
