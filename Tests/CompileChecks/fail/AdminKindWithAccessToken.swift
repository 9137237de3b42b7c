// expected-error: cannot convert value of type 'AccessToken' to expected argument type 'AdminToken'
import EndpointKit

func adminKindWithAccessToken() async throws {
    _ = try await client.response(for: .purge(42), using: AccessToken("s3cr3t"))
}
