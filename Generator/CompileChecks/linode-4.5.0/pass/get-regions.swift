// Linode: getRegions declares security: [], so it is public.
func call() async throws { _ = try await client.response(for: .getRegions()) }
