// security: [] is EndpointKinds.Public: sent without using:.
func call() async throws { _ = try await client.response(for: .listPublicThings(limit: 10, status: .active)) }
