// expected-error: requires the types 'AccessToken' and '(Void|\(\))' be equivalent
import EndpointKit

func privatePublisherWithoutToken() async throws {
    for try await results in client.publisher(for: .search(for: "swift")) { print(results) }
}
