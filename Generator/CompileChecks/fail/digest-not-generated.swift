// expected-error: has no member 'listThingsWithDigest'
// An operation whose kind is not decided (HTTP digest) is not generated.
func call() async throws { _ = try await client.response(for: .listThingsWithDigest()) }
