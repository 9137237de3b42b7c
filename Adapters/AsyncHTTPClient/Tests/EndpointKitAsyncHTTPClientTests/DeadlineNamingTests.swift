#if AsyncHTTPClient
import EndpointKit
import EndpointKitAsyncHTTPClient
import EndpointKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The deadline's error names the caller's setting over both transports, even when the steps before the transport
/// took part of it (the transport is given only what is left).
@Suite(.timeLimit(.minutes(1)))
struct DeadlineNamingTests {
    /// A cache in memory whose look-ups take 200 ms: a storage across a network, on a slow day.
    struct SlowStorage: HTTPCache.Storage {
        let inner = MemoryCacheStorage()

        func entries(for key: HTTPCache.Key) async -> [HTTPCache.Entry] {
            // Not an ordering wait: the look-up is to use up part of the call's deadline.
            try? await Task.sleep(for: .milliseconds(200))
            return inner.entries(for: key)
        }

        func store(_ entry: HTTPCache.Entry, for key: HTTPCache.Key) async { inner.store(entry, for: key) }
        func removeEntries(for key: HTTPCache.Key) async { inner.removeEntries(for: key) }
        func removeEntries(forURL url: String) async { inner.removeEntries(forURL: url) }
        func removeAll() async { inner.removeAll() }
    }

    @Test(
        "A timeout of 1 s that a slow cache look-up used part of names 1 s, not what the transport was left",
        arguments: DeliveryTests.Stack.allCases
    )
    func slowLookUpKeepsTheSetting(_ stack: DeliveryTests.Stack) async throws {
        let transport: any Transport = stack == .urlSession ? URLSessionTransport() : AsyncHTTPClientTransport()
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.fault()),
            transport: transport,
            cache: HTTPCache(storage: SlowStorage())
        )
        var held = Endpoint<EndpointKinds.Public, Data>(path: "hold/\(UUID().uuidString)")
        held.timeout = .seconds(1)

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: held) }

        #expect(error.kind == .timedOut)
        #expect(error.message == "no complete response within the deadline of 1 s (timeout)", "\(error.message)")
        #expect(error.request != nil)
    }
}
#endif
