#if AsyncHTTPClient
import EndpointKit
import EndpointKitAsyncHTTPClient
import Foundation
import Testing

/// What back-pressure buys: a reader that stops stops the server; streams and downloads keep their guarantees.
@Suite(.timeLimit(.minutes(1)))
struct BackPressureTests {
    private let transport = AsyncHTTPClientTransport()

    @Test("A reader that stops reading stops the server after a bounded part of the body; the rest then arrives")
    func readerPacesTheServer() async throws {
        let key = UUID().uuidString
        let counters = try Counters()
        let client = TestServers.client(try TestServers.fault(), transport)
        let size = 128 << 20

        let stream = try await client.stream(
            for: Endpoint<EndpointKinds.Public, Data>(
                path: "length/\(key)/128",
                queryItems: [URLQueryItem(name: "stall", value: "1")]
            )
        )
        var iterator = stream.body.makeAsyncIterator()
        var received = try await iterator.next()?.count ?? 0
        // The server finds it can write nothing for 0.5 s while this reader holds still.
        _ = try await counters.await("length-stalled", key)
        let sentByTheStall = try await counters.count("length-stalled-at", key)
        while let chunk = try await iterator.next() { received += chunk.count }

        #expect(sentByTheStall < 16 << 20, "the server stalled after \(sentByTheStall) bytes")
        #expect(received == size)
        #expect(try await counters.count("length-sent", key) == size)
    }

    @Test("A chunked body past the size limit fails with responseTooLarge, and the server is stopped soon after")
    func sizeLimitStopsTheServer() async throws {
        let key = UUID().uuidString
        let counters = try Counters()
        var defaults = RequestDefaults()
        defaults.maximumResponseSize = 1 << 20
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.fault()),
            transport: transport,
            defaults: defaults
        )

        let error = try await #require(throws: EndpointError.self) {
            try await client.response(for: Endpoint<EndpointKinds.Public, Data>(path: "chunked/\(key)/512"))
        }
        _ = try await counters.await("chunked-done", key)
        let sent = try await counters.count("chunked-sent", key)

        #expect(error.kind == .responseTooLarge)
        // What the socket buffers hold, not the 512 MiB a transport without back-pressure keeps reading.
        #expect(sent < 16 << 20, "the server sent \(sent >> 20) MiB")
        #expect(try await counters.count("chunked-closed", key) == 1)
    }

    @Test("A stream outlives the client and transport it was asked through, which shut down only after it")
    func streamOutlivesItsClient() async throws {
        let key = UUID().uuidString

        // Neither the client nor the transport is kept past this call.
        let stream = try await TestServers.client(try TestServers.fault(), AsyncHTTPClientTransport()).stream(
            for: Endpoint<EndpointKinds.Public, Data>(path: "length/\(key)/8")
        )
        var received = 0
        for try await chunk in stream.body { received += chunk.count }

        #expect(received == 8 << 20)
    }

    @Test("Leaving the loop mid-stream closes the connection: the server sees it")
    func leavingClosesTheConnection() async throws {
        let key = UUID().uuidString
        let counters = try Counters()
        let client = TestServers.client(try TestServers.fault(), transport)

        let stream = try await client.stream(for: Endpoint<EndpointKinds.Public, Data>(path: "jsonl/\(key)/4"))
        for try await line in stream.lines {
            #expect(line == #"{"index": 0}"#)
            break
        }

        #expect(try await counters.await("jsonl-closed", key) == 1)
        #expect(try await counters.count("jsonl-sent", key) == 1)
    }

    @Test("Server-Sent Events reconnect with Last-Event-ID until the server answers 204")
    func serverSentEvents() async throws {
        let key = UUID().uuidString
        let counters = try Counters()
        let client = TestServers.client(try TestServers.fault(), transport)

        var ids: [String?] = []
        for try await event in try await client.stream(
            for: Endpoint<EndpointKinds.Public, ServerSentEvents>(path: "sse/\(key)")
        ) {
            ids.append(event.id)
        }

        #expect(ids == ["1", "2", "3"])
        #expect(try await counters.count("sse-last-id-2", key) == 1)
        #expect(try await counters.count("sse-last-id-3", key) == 1)
    }

    @Test("A download cut part way resumes with Range to a byte-identical file")
    func downloadResumes() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ek-ahc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("file.bin")
        let key = UUID().uuidString
        let counters = try Counters()
        let client = TestServers.client(try TestServers.fault(), transport)
        let endpoint = Endpoint<EndpointKinds.Public, URL>(
            path: "file/\(key)/4",
            queryItems: [URLQueryItem(name: "cut", value: "1")]
        )

        let error = try await #require(throws: EndpointError.self) {
            try await client.download(for: endpoint, to: destination).result()
        }
        let kept = try Data(contentsOf: folder.appendingPathComponent(".file.bin.download")).count
        var progress: [DownloadProgress] = []
        for try await event in client.download(for: endpoint, to: destination) {
            if case .progress(let step) = event { progress.append(step) }
        }

        #expect(error.kind == .transportFailed)
        #expect(error.isTransient)
        #expect(kept > 0 && kept < 4 << 20)
        #expect(progress.first?.resumedFrom == Int64(kept))
        #expect(progress.map(\.bytesWritten) == progress.map(\.bytesWritten).sorted())
        #expect(progress.last?.bytesWritten == 4 << 20)
        #expect(try Data(contentsOf: destination) == Self.expectedFile(mebibytes: 4))
        #expect(try await counters.count("file-range", key) == 1)
    }

    /// The bytes `/file/KEY/N` serves: byte i is (i * 31 + 7) % 251, built from one period.
    private static func expectedFile(mebibytes: Int) -> Data {
        let period = Data((0..<251).map { UInt8(($0 * 31 + 7) % 251) })
        var file = Data(capacity: mebibytes << 20 + 251)
        while file.count < mebibytes << 20 { file.append(period) }
        return file.prefix(mebibytes << 20)
    }
}
#endif
