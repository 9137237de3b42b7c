// An HTTP basic scheme is EndpointKinds.Basic: sent with BasicCredentials.
func call() async throws { _ = try await client.response(for: .deleteThing(thingId: 1), using: credentials) }
