import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(1))) struct ExchangeLoggingTests {
    @Test("Every attempt is reported with status, bytes, attempt number and no secrets")
    func records() async throws {
        let records = Locked([ExchangeRecord]())
        let transport = StubTransport(replies: [.status(503), .json(#"{"items": []}"#)])
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: transport,
            middleware: [
                Retry(RetryPolicy(baseDelay: .zero), clock: ImmediateClock()),
                ExchangeLogging { record in records.withLock { $0.append(record) } },
            ]
        )

        _ = try await client.response(for: .search(for: "tea"), using: AccessToken("s3cr3t"))

        let logged = records.withLock { $0 }
        #expect(logged.map(\.statusCode) == [503, 200])
        #expect(logged.map(\.attempt) == [1, 2])
        #expect(logged.last?.bytesReceived == #"{"items": []}"#.utf8.count)
        #expect(logged.allSatisfy { $0.requestHeaders[.authorization] == "<redacted>" })
        #expect(logged.allSatisfy { !$0.description.contains("s3cr3t") })
        #expect(logged.first?.redactedURL == "https://api.test/v1/search?q=tea")
    }

    @Test("A failed exchange is reported with its error")
    func failure() async throws {
        let records = Locked([ExchangeRecord]())
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: StubTransport(replies: [.failure(URLError(.cannotConnectToHost))]),
            middleware: [ExchangeLogging { record in records.withLock { $0.append(record) } }]
        )

        _ = try? await client.response(for: .item(1))

        let record = try #require(records.withLock { $0.first })
        #expect(record.statusCode == nil)
        #expect(record.error?.kind == .transportFailed)
    }

    @Test("A streamed body is recorded as streamed when its head arrives, not as an empty body; a collected one is not")
    func streamed() async throws {
        let records = Locked([ExchangeRecord]())
        let transport = StubTransport(replies: [
            .streamed(chunks: [Data("line 1\n".utf8), Data("line 2\n".utf8)]), .json(#"{"items": []}"#),
        ])
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: transport,
            middleware: [ExchangeLogging { record in records.withLock { $0.append(record) } }]
        )

        let stream = try await client.stream(for: .item(1))
        let loggedAtHead = records.withLock { $0 }
        for try await _ in stream.lines {}
        _ = try await client.response(for: .search(for: "tea"), using: AccessToken("t"))

        let logged = records.withLock { $0 }
        #expect(loggedAtHead.count == 1, "the streamed exchange is recorded as its head arrives")
        #expect(logged.map(\.isStreamed) == [true, false])
        #expect(logged.first?.description.contains("→ 200, streamed, head in") == true)
        #expect(logged.last?.description.contains("→ 200, 13 B in") == true)
    }
}
