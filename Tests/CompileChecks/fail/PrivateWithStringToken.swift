// expected-error: cannot convert value of type 'String' to expected argument type 'AccessToken'
import EndpointKit

func privateWithStringToken() async throws {
    _ = try await client.response(for: .search(for: "swift"), using: "s3cr3t")
}
