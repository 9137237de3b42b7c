// expected-error: requires the types 'AccessToken' and '(Void|\(\))' be equivalent
import EndpointKit

func jsonLinesWithoutToken() async throws {
    for try await _ in try await client.stream(for: .itemFeed) {}
}
