// header key AND bearer: both credentials at once.
func call() async throws {
    let both = SecurityKinds.BearerAuthAndHeaderKey.Credentials(bearerAuth: token, headerKey: token)
    _ = try await client.response(for: .listThingsWithBoth(), using: both)
}
