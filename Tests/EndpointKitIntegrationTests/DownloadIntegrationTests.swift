import EndpointKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

private struct Tally: Decodable { var count: Int }

/// Downloads against the fault server's `/file` (Range, If-Range, cut connections) and nginx's static files.
@Suite(.timeLimit(.minutes(1)))
struct DownloadIntegrationTests {
    /// The bytes `/file/KEY/N` serves with ETag `etag`: byte i is (i * 31 + 7) % 251 for "v1"; another version
    /// starts that pattern at the sum of the ETag's bytes (quotes included), mod 251.
    private func expectedFile(mebibytes: Int, etag: String = "v1") -> Data {
        // The pattern repeats every 251 bytes: built from one period, since mapping every byte of several MiB in a
        // debug build keeps a cooperative thread busy long enough to delay the other suites' deadlines.
        let period = Data((0..<251).map { UInt8(($0 * 31 + 7) % 251) })
        let shift = etag == "v1" ? 0 : "\"\(etag)\"".utf8.reduce(0) { $0 + Int($1) } % 251
        var file = Data(capacity: mebibytes << 20 + 2 * 251)
        while file.count < mebibytes << 20 + shift { file.append(period) }
        return file.dropFirst(shift).prefix(mebibytes << 20)
    }

    private func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ek-download-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    private func counter(_ name: String, _ key: String) async throws -> Int {
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        return try await client.response(for: Endpoint<EndpointKinds.Public, Tally>(path: "count/\(name)/\(key)")).count
    }

    @Test("A download writes the body to the destination, with progress that only grows and ends at the total")
    func downloadWithProgress() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("file.bin")
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))

        var progress: [DownloadProgress] = []
        var finished: EndpointKit.Response<URL>?
        for try await event in client.download(
            for: Endpoint<EndpointKinds.Public, URL>(path: "file/\(UUID().uuidString)/3"),
            to: destination
        ) {
            switch event {
            case .progress(let step): progress.append(step)
            case .finished(let response): finished = response
            }
        }

        let response = try #require(finished)
        #expect(response.value == destination)
        #expect(response.statusCode == 200)
        #expect(try Data(contentsOf: destination) == expectedFile(mebibytes: 3))
        #expect(!progress.isEmpty)
        #expect(progress.map(\.bytesWritten) == progress.map(\.bytesWritten).sorted())
        #expect(progress.last?.bytesWritten == 3 << 20)
        #expect(progress.allSatisfy { $0.expectedBytes == 3 << 20 })
        // Beside the file, only the validators a later download of it asks with.
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == [
                ".file.bin.validators.json", "file.bin",
            ]
        )
    }

    @Test(
        "A download cut part way keeps its partial file, and the next one resumes it with Range to a byte-identical file"
    )
    func resumeAfterCut() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("file.bin")
        let key = UUID().uuidString
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        let endpoint = Endpoint<EndpointKinds.Public, URL>(
            path: "file/\(key)/4",
            queryItems: [URLQueryItem(name: "cut", value: "1")]
        )

        let error = try await #require(throws: EndpointError.self) {
            try await client.download(for: endpoint, to: destination).result()
        }
        let partial = folder.appendingPathComponent(".file.bin.download")
        let kept = try Data(contentsOf: partial).count
        let destinationAfterCut = FileManager.default.fileExists(atPath: destination.path)
        var resumedFrom: Int64?
        for try await event in client.download(for: endpoint, to: destination) {
            if case .progress(let step) = event { resumedFrom = step.resumedFrom }
        }

        #expect(error.kind == .transportFailed)
        #expect(error.request?.description.hasSuffix("/file/\(key)/4?cut=1") == true, "the error names the request")
        #expect(!destinationAfterCut, "the destination never holds part of a file")
        #expect(kept > 0 && kept < 4 << 20)
        #expect(resumedFrom == Int64(kept))
        #expect(try Data(contentsOf: destination) == expectedFile(mebibytes: 4))
        #expect(try await counter("file-range", key) == 1)
        #expect(!FileManager.default.fileExists(atPath: partial.path))
    }

    @Test(
        "A resumption the server does not honour (200, or a changed ETag) restarts cleanly",
        arguments: [("ignore-range", "1"), ("etag", "v2")]
    )
    func resumptionRefused(option: String, value: String) async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("file.bin")
        let key = UUID().uuidString
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        let cut = Endpoint<EndpointKinds.Public, URL>(
            path: "file/\(key)/2",
            queryItems: [URLQueryItem(name: "cut", value: "1")]
        )
        _ = try? await client.download(for: cut, to: destination).result()
        let kept = try Data(contentsOf: folder.appendingPathComponent(".file.bin.download")).count
        // The same URL, now answered differently: Range ignored, or the file changed.
        var changed = cut
        changed.headers["X-Option"] = "\(option)=\(value)"

        let response = try await client.download(for: changed, to: destination).result()

        #expect(kept > 0)
        #expect(try await counter("file-range", key) == 1)
        #expect(response.statusCode == 200)
        #expect(try Data(contentsOf: destination) == expectedFile(mebibytes: 2, etag: option == "etag" ? value : "v1"))
    }

    @Test(
        "A server that ignores If-Range and sends a part of a changed file (another ETag) gets asked for it whole",
        arguments: [nil, 1]
    )
    func ifRangeIgnored(partMiB: Int?) async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("file.bin")
        let key = UUID().uuidString
        var defaults = RequestDefaults()
        defaults.downloadPartSize = partMiB.map { $0 << 20 }
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.fault()),
            defaults: defaults
        )
        let cut = Endpoint<EndpointKinds.Public, URL>(
            path: "file/\(key)/3",
            queryItems: [URLQueryItem(name: "cut", value: "1")]
        )
        _ = try? await client.download(for: cut, to: destination).result()
        let kept = try Data(contentsOf: folder.appendingPathComponent(".file.bin.download")).count
        // The same URL, now a changed file whose server answers any Range with a part of it.
        var changed = cut
        changed.headers["X-Option"] = "etag=v2,ignore-if-range=1"

        _ = try await client.download(for: changed, to: destination).result()

        #expect(kept > 0)
        #expect(try Data(contentsOf: destination) == expectedFile(mebibytes: 3, etag: "v2"), "no mix of two versions")
    }

    @Test("A download redirected to another server (a CDN) and cut there names that hop beside the request")
    func cutAfterRedirectNamesHop() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = UUID().uuidString
        var cdn = try #require(URLComponents(url: try TestServers.fault(), resolvingAgainstBaseURL: false))
        cdn.path = "/file/\(key)/4"
        cdn.query = "cut=1"
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.httpbin()))
        let endpoint = Endpoint<EndpointKinds.Public, URL>(
            path: "redirect-to",
            queryItems: [URLQueryItem(name: "url", value: try #require(cdn.url).absoluteString)]
        )

        let error = try await #require(throws: EndpointError.self) {
            try await client.download(for: endpoint, to: folder.appendingPathComponent("file.bin")).result()
        }

        #expect(error.kind == .transportFailed)
        #expect(error.request?.redactedURL.contains("/redirect-to?") == true)
        #expect(error.hop?.redactedURL.hasSuffix("/file/\(key)/4?cut=1") == true, "\(String(describing: error.hop))")
    }

    /// A client that downloads `partMiB` MiB at a time.
    private func partsClient(partMiB: Int) throws -> EndpointClient {
        var defaults = RequestDefaults()
        defaults.downloadPartSize = partMiB << 20
        return EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()), defaults: defaults)
    }

    @Test("A download in parts asks for each with Range (If-Range after the first) and writes a byte-identical file")
    func downloadInParts() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("file.bin")
        let key = UUID().uuidString
        let client = try partsClient(partMiB: 1)

        var progress: [DownloadProgress] = []
        var finished: EndpointKit.Response<URL>?
        for try await event in client.download(
            for: Endpoint<EndpointKinds.Public, URL>(path: "file/\(key)/5"),
            to: destination
        ) {
            switch event {
            case .progress(let step): progress.append(step)
            case .finished(let response): finished = response
            }
        }

        #expect(try Data(contentsOf: destination) == expectedFile(mebibytes: 5))
        #expect(finished?.statusCode == 206)
        #expect(finished?.attempts == 1, "5 parts, none retried: one attempt, as the property's documentation says")
        #expect(try await counter("file", key) == 5)
        #expect(try await counter("file-range", key) == 5)
        #expect(progress.map(\.bytesWritten) == progress.map(\.bytesWritten).sorted())
        #expect(progress.last?.bytesWritten == 5 << 20)
        #expect(progress.allSatisfy { $0.resumedFrom == 0 && $0.expectedBytes == 5 << 20 })
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(".file.bin.download").path))
    }

    @Test("A download in parts cut part way resumes in parts from the bytes kept, to a byte-identical file")
    func partsResumeAfterCut() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("file.bin")
        let key = UUID().uuidString
        let client = try partsClient(partMiB: 1)
        let endpoint = Endpoint<EndpointKinds.Public, URL>(
            path: "file/\(key)/3",
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

        #expect(error.isTransient)
        #expect(kept > 0 && kept < 1 << 20, "the first part was cut after half of it")
        #expect(progress.first?.bytesWritten == Int64(kept))
        #expect(progress.allSatisfy { $0.resumedFrom == Int64(kept) })
        #expect(progress.last?.bytesWritten == 3 << 20)
        #expect(try Data(contentsOf: destination) == expectedFile(mebibytes: 3))
        // The cut part, then the rest of its part and two more.
        #expect(try await counter("file-range", key) == 4)
    }

    @Test(
        "Parts a server ignores (200) or cannot check (no validator: asked for whole) end in the whole file",
        arguments: [("ignore-range", "1", 1), ("etag", "none", 2)]
    )
    func partsAnsweredWhole(option: String, value: String, requests: Int) async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("file.bin")
        let key = UUID().uuidString
        let client = try partsClient(partMiB: 1)

        let response = try await client.download(
            for: Endpoint<EndpointKinds.Public, URL>(
                path: "file/\(key)/3",
                queryItems: [URLQueryItem(name: option, value: value)]
            ),
            to: destination
        ).result()

        #expect(response.statusCode == 200)
        #expect(try Data(contentsOf: destination) == expectedFile(mebibytes: 3))
        #expect(try await counter("file", key) == requests)
        #expect(try await counter("file-range", key) == 1, "only the first request asked for a part")
    }

    @Test(
        "A part size larger than any file, up to Int.max, asks for the file in one part",
        arguments: [8 << 20, Int.max]
    )
    func onePart(partSize: Int) async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("file.bin")
        let key = UUID().uuidString
        var defaults = RequestDefaults()
        defaults.downloadPartSize = partSize
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.fault()),
            defaults: defaults
        )

        // Resumed after a cut, so that the part starts past 0 and its end could overflow.
        let endpoint = Endpoint<EndpointKinds.Public, URL>(
            path: "file/\(key)/2",
            queryItems: [URLQueryItem(name: "cut", value: "1")]
        )
        _ = try? await client.download(for: endpoint, to: destination).result()
        let response = try await client.download(for: endpoint, to: destination).result()

        #expect(response.statusCode == 206)
        #expect(try Data(contentsOf: destination) == expectedFile(mebibytes: 2))
        #expect(try await counter("file", key) == 2)
    }

    @Test("An empty file downloaded in parts (its first part is a 416 with a size of 0) is an empty file")
    func emptyFileInParts() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("empty.bin")

        let response = try await partsClient(partMiB: 1).download(
            for: Endpoint<EndpointKinds.Public, URL>(path: "file/\(UUID().uuidString)/0"),
            to: destination
        ).result()

        #expect(response.value == destination)
        #expect(try Data(contentsOf: destination).isEmpty)
    }

    @Test("Leaving the loop mid-download closes the connection and keeps the partial file for the next download")
    func cancelMidBody() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("file.bin")
        let key = UUID().uuidString
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))

        for try await event in client.download(
            for: Endpoint<EndpointKinds.Public, URL>(
                path: "file/\(key)/256",
                queryItems: [URLQueryItem(name: "pace", value: "1")]
            ),
            to: destination
        ) {
            if case .progress(let progress) = event, progress.bytesWritten > 0 { break }
        }
        let closed = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        _ = try await closed.response(for: Endpoint<EndpointKinds.Public, Tally>(path: "await/file-closed/\(key)"))

        let kept = try Data(contentsOf: folder.appendingPathComponent(".file.bin.download")).count
        #expect(try await counter("file-closed", key) == 1)
        #expect(kept > 0 && kept < 256 << 20)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test(
        "A 416 completes a partial file that is the whole file, and restarts one longer than the file",
        arguments: [(1, 416, 1), (2, 200, 2)]
    )
    func partialAnsweredBy416(keptMiB: Int, status: Int, requests: Int) async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("file.bin")
        let key = UUID().uuidString
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        let endpoint = Endpoint<EndpointKinds.Public, URL>(path: "file/\(key)/1")
        let url = try TestServers.fault().appendingPathComponent("file/\(key)/1")
        try expectedFile(mebibytes: keptMiB).write(to: folder.appendingPathComponent(".file.bin.download"))
        let info = #"{"url": "\#(url.absoluteString)", "validator": "\"v1\""}"#
        try Data(info.utf8).write(to: folder.appendingPathComponent(".file.bin.download.json"))

        let response = try await client.download(for: endpoint, to: destination).result()

        #expect(response.statusCode == status)
        #expect(try Data(contentsOf: destination) == expectedFile(mebibytes: 1))
        #expect(try await counter("file", key) == requests)
        #expect(try await counter("file-range", key) == 1)
    }

    @Test("A download behind a cross-origin 302 (a CDN) sends no credentials there")
    func crossOriginRedirect() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = UUID().uuidString
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))

        let response = try await client.download(
            for: Endpoint<EndpointKinds.Private, URL>(path: "file-redirect/\(key)/1"),
            using: AccessToken("s3cr3t"),
            to: folder.appendingPathComponent("asset.bin")
        ).result()

        #expect(response.url?.host == "localhost")
        #expect(try Data(contentsOf: response.value) == expectedFile(mebibytes: 1))
        #expect(try await counter("file", key) == 1)
        #expect(try await counter("file-auth", key) == 0)
    }

    @Test(
        "Downloading an unchanged file again is a 304 that leaves it untouched; a file changed locally is fetched whole"
    )
    func conditionalDownload() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("random.bin")
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.nginx()))
        let endpoint = Endpoint<EndpointKinds.Public, URL>(path: "random-64k.bin")

        let first = try await client.download(for: endpoint, to: destination).result()
        let original = try Data(contentsOf: destination)
        let stamp = try FileManager.default.attributesOfItem(atPath: destination.path)[.modificationDate] as? Date
        let again = try await client.download(for: endpoint, to: destination).result()

        #expect(first.statusCode == 200 && first.source == .network)
        #expect(again.statusCode == 304 && again.source == .revalidated)
        #expect(try Data(contentsOf: destination) == original)
        #expect(try FileManager.default.attributesOfItem(atPath: destination.path)[.modificationDate] as? Date == stamp)

        // Changed here: never taken for the server's file.
        try Data("changed".utf8).write(to: destination)
        let refetched = try await client.download(for: endpoint, to: destination).result()
        #expect(refetched.statusCode == 200)
        #expect(try Data(contentsOf: destination) == original)
    }

    @Test("A download larger than the response size limit works: the limit is for bodies held in memory")
    func largerThanTheLimit() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var defaults = RequestDefaults()
        defaults.maximumResponseSize = 1 << 20
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: try TestServers.fault()),
            defaults: defaults
        )

        let response = try await client.download(
            for: Endpoint<EndpointKinds.Public, URL>(path: "file/\(UUID().uuidString)/4"),
            to: folder.appendingPathComponent("big.bin")
        ).result()

        #expect(try Data(contentsOf: response.value).count == 4 << 20)
    }

    @Test("An error status fails the download with its status and body, and leaves no file")
    func errorStatus() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.nginx()))

        let error = try await #require(throws: EndpointError.self) {
            try await client.download(
                for: Endpoint<EndpointKinds.Public, URL>(path: "missing.bin"),
                to: folder.appendingPathComponent("missing.bin")
            ).result()
        }

        #expect(error.kind == .unacceptableStatus)
        #expect(error.statusCode == 404)
        #expect(error.bodySnippet?.contains("404") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test(
        "A second download to a destination another download is writing fails at once, sending nothing; later ones work"
    )
    func oneDownloadPerDestination() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("file.bin")
        let key = UUID().uuidString
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        let stalled = Endpoint<EndpointKinds.Public, URL>(path: "stall-body/\(key)")
        let file = Endpoint<EndpointKinds.Public, URL>(path: "file/\(key)/2")

        let first = Task { try await client.download(for: stalled, to: destination).result() }
        // The server's count says the first download is under way: its head arrived and 10 bytes were sent.
        while try await counter("stall-body-sent", key) < 1 { await Task.yield() }
        let error = try await #require(throws: EndpointError.self) {
            try await client.download(for: file, to: destination).result()
        }
        let sentWhileBusy = try await counter("file", key)
        first.cancel()
        _ = await first.result
        let later = try await client.download(for: file, to: destination).result()

        #expect(error.kind == .invalidRequest)
        #expect(error.message.contains("another download to \(destination.path) is under way"))
        #expect(sentWhileBusy == 0, "the refused download must not reach the server")
        #expect(try Data(contentsOf: later.value) == expectedFile(mebibytes: 2))
        // Beside the file, only the validators a later download of it asks with.
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == [
                ".file.bin.validators.json", "file.bin",
            ]
        )
    }

    @Test(
        "A destination in a folder that does not exist fails before anything is sent, saying so, and is not transient"
    )
    func missingFolder() async throws {
        let key = UUID().uuidString
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        let destination = FileManager.default.temporaryDirectory
            .appendingPathComponent("ek-missing-\(UUID().uuidString)/file.bin")

        let error = try await #require(throws: EndpointError.self) {
            try await client.download(for: Endpoint<EndpointKinds.Public, URL>(path: "file/\(key)/1"), to: destination)
                .result()
        }

        #expect(error.kind == .invalidRequest)
        #expect(!error.isTransient)
        #expect(error.message.contains("does not exist"))
        #expect(error.request != nil)
        #expect(try await counter("file", key) == 0)
    }
}
