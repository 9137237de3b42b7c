// expected-error: requires the types 'ServerSentEvents' and '\[Item\]' be equivalent
import EndpointKit

func eventsFromJSONEndpoint() async throws {
    for try await _ in client.events(for: .featuredItems) {}
}
