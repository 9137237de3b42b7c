// expected-error: cannot convert value of type 'StreamedResponse' to specified type 'ServerSentEvents'|no 'stream' candidates produce the expected contextual result type 'ServerSentEvents'|requires the types 'ServerSentEvents' and '\[Item\]' be equivalent
import EndpointKit

func eventsFromJSONEndpoint() async throws {
    let events: ServerSentEvents = try await client.stream(for: .featuredItems)
    for try await _ in events {}
}
