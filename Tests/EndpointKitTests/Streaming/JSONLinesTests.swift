import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

private struct Reading: Decodable, Sendable, Equatable {
    var sensorId: Int
    var value: Double
}

extension Endpoint where Kind == EndpointKinds.Private, Response == JSONLines<Reading> {
    fileprivate static var readings: Self { Endpoint(path: "readings") }
}

@Suite(.timeLimit(.minutes(1))) struct JSONLinesTests {
    @Test("A JSON Lines endpoint yields its elements across chunk boundaries, with the kind's credentials sent")
    func elements() async throws {
        let transport = StubTransport(replies: [
            .streamed(chunks: [
                Data("{\"sensorId\": 1, \"value\": 0.5}\n{\"sensorId\"".utf8), Data(#": 2, "value": 1.5}"#.utf8),
            ])
        ])
        let client = EndpointClient(environment: Fixture.environment, transport: transport)

        var readings: [Reading] = []
        for try await reading in try await client.stream(for: .readings, using: AccessToken("t0k3n")) {
            readings.append(reading)
        }

        #expect(readings == [Reading(sensorId: 1, value: 0.5), Reading(sensorId: 2, value: 1.5)])
        #expect(await transport.transportRequests.first?.headers[.authorization] == "Bearer t0k3n")
    }

    @Test("The endpoint's decoder decodes each line")
    func endpointDecoder() async throws {
        let transport = StubTransport(replies: [.streamed(chunks: [Data(#"{"sensor_id": 3, "value": 2}"#.utf8)])])
        let client = EndpointClient(environment: Fixture.environment, transport: transport)
        var endpoint = Endpoint<EndpointKinds.Private, JSONLines<Reading>>.readings
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        endpoint.decoder = decoder

        var readings: [Reading] = []
        for try await reading in try await client.stream(for: endpoint, using: AccessToken("t")) {
            readings.append(reading)
        }

        #expect(readings == [Reading(sensorId: 3, value: 2)])
    }

    @Test("An error status fails the call before any element, with its status")
    func errorStatus() async throws {
        let transport = StubTransport(replies: [.json(#"{"message": "gone"}"#, status: 410)])
        let client = EndpointClient(environment: Fixture.environment, transport: transport)

        let error = await #expect(throws: EndpointError.self) {
            _ = try await client.stream(for: .readings, using: AccessToken("t"))
        }

        #expect(error?.kind == .unacceptableStatus)
        #expect(error?.statusCode == 410)
    }
}
