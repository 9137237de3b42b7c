// OAuth 2.0 is a bearer token: EndpointKinds.Private.
func call() async throws { _ = try await client.response(for: .listThingsWithOAuth(), using: token) }
