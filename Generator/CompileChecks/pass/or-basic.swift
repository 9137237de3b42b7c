// basic OR bearer: the caller picks basic.
func call(thing: Thing) async throws {
    _ = try await client.response(for: .createThingWithEither(body: thing), using: .basic(credentials))
}
