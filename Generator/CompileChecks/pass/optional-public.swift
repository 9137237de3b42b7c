// {} OR bearer: the public form is generated too, sent without using:.
func call() async throws { _ = try await client.response(for: .listThingsOptionally()) }
