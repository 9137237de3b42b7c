// expected-error: requires the types 'AccessToken' and '(Void|\(\))' be equivalent
import EndpointKit

func privateWithoutToken() async throws {
    _ = try await client.response(for: .search(for: "swift"))
}
