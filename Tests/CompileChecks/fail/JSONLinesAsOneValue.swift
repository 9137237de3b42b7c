// expected-error: requires that 'JSONLines<Item>' conform to 'Decodable'
import EndpointKit

func jsonLinesAsOneValue() async throws {
    _ = try await client.response(for: .itemFeed, using: AccessToken("s3cr3t"))
}
