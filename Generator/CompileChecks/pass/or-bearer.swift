// basic OR bearer: the caller picks bearer.
func call(thing: Thing) async throws {
    _ = try await client.response(for: .createThingWithEither(body: thing), using: .bearer(token))
}
