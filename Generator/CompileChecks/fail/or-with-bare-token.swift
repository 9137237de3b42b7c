// expected-error: cannot convert value of type 'AccessToken' to expected argument type 'SecurityKinds.BasicOrBearer.Credential'
// basic OR bearer: the caller must say which alternative a token is for.
func call(thing: Thing) async throws {
    _ = try await client.response(for: .createThingWithEither(body: thing), using: token)
}
