// An HTTP bearer scheme is EndpointKinds.Private: sent with an AccessToken.
func call() async throws { _ = try await client.response(for: .getThing(thingId: 1), using: token) }
