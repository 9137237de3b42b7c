// expected-error: requires the types 'SecurityKinds.BearerAuthAndHeaderKey.Credentials' and '\(\)' be equivalent
// header key AND bearer, sent without credentials.
func call() async throws { _ = try await client.response(for: .listThingsWithBoth()) }
