// expected-error: requires the types 'SecurityKinds.BasicOrBearer.Credential' and '\(\)' be equivalent
// basic OR bearer, sent without either.
func call(thing: Thing) async throws { _ = try await client.response(for: .createThingWithEither(body: thing)) }
