// expected-error: requires the types 'AccessToken' and '\(\)' be equivalent
// Linode: getAccount, sent without a token.
func call() async throws { _ = try await client.response(for: .getAccount()) }
