import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The disk store: atomic across a killed writer, shared by two processes, bounded, versioned, private.
@Suite(.serialized, .timeLimit(.minutes(2))) struct DiskCacheStorageTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ek-disk-\(UUID().uuidString)")

    /// `EndpointKitCacheWriter`, built beside the test bundle.
    static var writer: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("EndpointKitCacheWriter")
    }

    /// Starts the writer; returns it once it printed its first line (`ready`: its first entry is stored), with
    /// that line. Blocks: call it inside ``offThePool(_:)``.
    static func startWriter(_ arguments: [String]) throws -> (process: Process, line: String) {
        let process = Process()
        process.executableURL = writer
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        return (process, String(decoding: line, as: UTF8.self))
    }

    /// Runs `body`, which waits on processes, pipes and files, on a thread of its own: blocking a thread of the
    /// cooperative pool would starve the tests running beside this one (a cancellation test missed its bound so).
    static func offThePool<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Every entry file in the directory, read back: all whole, every body matching its `X-Check` sum.
    static func checkEveryEntry(in directory: URL) throws -> Int {
        let entries = directory.appendingPathComponent("v1/entries")
        var checked = 0
        for folder in try FileManager.default.contentsOfDirectory(atPath: entries.path) {
            let folderURL = entries.appendingPathComponent(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: folderURL.path) {
                let data = try Data(contentsOf: folderURL.appendingPathComponent(name))
                let variants = try #require(DiskCacheStorage.decode(data), "a torn entry: \(folder)/\(name)")
                for variant in variants {
                    let sum = variant.body.reduce(UInt64(0)) { $0 &+ UInt64($1) }
                    #expect(variant.headers["X-Check"] == String(sum))
                    checked += 1
                }
            }
        }
        return checked
    }

    @Test("A writer killed mid-write leaves whole entries only, and the next process reads them", arguments: 1...3)
    func killedWriter(seed: Int) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        print("killedWriter seed \(seed)")
        let directory = self.directory
        let (ready, leftovers) = try await Self.offThePool { () throws -> (String, Int) in
            let (process, line) = try Self.startWriter([
                directory.path, String(seed), "0", String(1 << 20), String(64 << 20),
            ])
            // The signal to kill on is the writer's temporary file appearing: it is then writing an entry it has
            // not yet renamed into place.
            let temporary = directory.appendingPathComponent("v1/tmp").path
            while (try? FileManager.default.contentsOfDirectory(atPath: temporary))?.isEmpty ?? true { sched_yield() }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return (line, try FileManager.default.contentsOfDirectory(atPath: temporary).count)
        }
        #expect(ready == "ready\n")
        print("killedWriter seed \(seed): \(leftovers) temporary file(s) left by the kill")

        #expect(try Self.checkEveryEntry(in: directory) >= 1)
        // A new storage on the directory (as a new process would open it) serves what is there.
        let storage = try DiskCacheStorage(directory: directory)
        let served = (0..<40).flatMap { index in
            storage.entries(for: HTTPCache.Key(partition: "", method: .get, url: "https://writer.test/\(index)"))
        }
        #expect(!served.isEmpty)
    }

    @Test("Two processes writing one directory at once: every entry whole, and the directory trimmed to its bound")
    func twoProcesses() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        // Small entries and a small bound, so that both processes trim often, at little cost to the tests
        // running beside these.
        let maximum = 256 << 10
        let directory = self.directory
        let (lines, statuses) = try await Self.offThePool { () throws -> ([String], [Int32]) in
            let first = try Self.startWriter([directory.path, "11", "60", String(16 << 10), String(maximum)])
            let second = try Self.startWriter([directory.path, "12", "60", String(16 << 10), String(maximum)])
            first.process.waitUntilExit()
            second.process.waitUntilExit()
            return ([first.line, second.line], [first.process.terminationStatus, second.process.terminationStatus])
        }
        #expect(lines == ["ready\n", "ready\n"])
        #expect(statuses == [0, 0])

        #expect(try Self.checkEveryEntry(in: directory) > 0)
        let storage = try DiskCacheStorage(directory: directory, maximumSize: maximum)
        // Each process trims what it knows of; together they stay within twice the bound, and any trim brings
        // the directory within it.
        #expect(storage.currentSize <= 2 * maximum)
        storage.trim()
        #expect(storage.currentSize <= maximum)
        // Both processes made or read one secret: one partition for both.
        let secret = try Data(contentsOf: directory.appendingPathComponent("v1/secret"))
        #expect(storage.partitionSecret == secret)
    }

    @Test("A torn file at an entry's place, at any length, is ignored rather than misread")
    func tornFile() throws {
        let entry = HTTPCache.Entry(
            statusCode: 200,
            headers: ["ETag": "\"1\""],
            body: Data(repeating: 7, count: 300),
            requestDate: Date(),
            responseDate: Date(),
            secondaryKey: "v"
        )
        let whole = DiskCacheStorage.encode([entry])
        #expect(DiskCacheStorage.decode(whole) == [entry])
        for length in stride(from: 0, to: whole.count, by: 7) {
            #expect(DiskCacheStorage.decode(whole.prefix(length)) == nil)
        }
        var otherFormat = whole
        otherFormat[3] = UInt8(ascii: "0")
        #expect(DiskCacheStorage.decode(otherFormat) == nil)
    }

    @Test("Versioned: what another format wrote is ignored; a newer layout in v2/ is left alone")
    func versioned() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = try DiskCacheStorage(directory: directory)
        let key = HTTPCache.Key(partition: "", method: .get, url: "https://api.test/v1/items/1")
        storage.store(
            HTTPCache.Entry(
                statusCode: 200,
                headers: [:],
                body: Data("x".utf8),
                requestDate: Date(),
                responseDate: Date(),
                secondaryKey: nil
            ),
            for: key
        )
        let files = try FileManager.default.subpathsOfDirectory(
            atPath: directory.appendingPathComponent("v1/entries").path
        )
        let file = try #require(files.first { $0.contains("/") })
        let path = directory.appendingPathComponent("v1/entries/\(file)")
        var data = try Data(contentsOf: path)
        data[0..<4] = Data("EKC0".utf8)
        try data.write(to: path)
        #expect(storage.entries(for: key).isEmpty)

        let newer = directory.appendingPathComponent("v2")
        try FileManager.default.createDirectory(at: newer, withIntermediateDirectories: true)
        try Data("future".utf8).write(to: newer.appendingPathComponent("entry"))
        storage.removeAll()
        #expect(try Data(contentsOf: newer.appendingPathComponent("entry")) == Data("future".utf8))
    }

    @Test(
        "Through a client: a second cache on the directory serves the first one's response, in its partition only, and no file names or holds the token or the URL"
    )
    func acrossCaches() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let transport = StubTransport { _ in
            .response(
                status: 200,
                headers: [
                    "Cache-Control": "private, max-age=600", "Content-Type": "application/json", "Set-Cookie": "s=1",
                ],
                body: Data(#"{"items": [{"id": 1, "name": "tea"}]}"#.utf8)
            )
        }
        func client() throws -> EndpointClient {
            EndpointClient(
                environment: Fixture.environment,
                transport: transport,
                cache: HTTPCache(storage: try DiskCacheStorage(directory: directory))
            )
        }
        _ = try await client().response(for: .search(for: "tea"), using: AccessToken("disk-s3cret"))
        let later = try client()
        #expect(try await later.exchange(for: .search(for: "tea"), using: AccessToken("disk-s3cret")).source == .cache)
        #expect(try await later.exchange(for: .search(for: "tea"), using: AccessToken("other")).source == .network)
        #expect(await transport.transportRequests.count == 2)

        for path in try FileManager.default.subpathsOfDirectory(atPath: directory.path) {
            #expect(!path.contains("search") && !path.contains("s3cret"))
            let url = directory.appendingPathComponent(path)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue else {
                continue
            }
            let text = String(decoding: try Data(contentsOf: url), as: UTF8.self)
            #expect(!text.contains("disk-s3cret") && !text.contains("s=1"))
            let mode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
            #expect(mode.map { $0 & 0o077 == 0 } ?? false)
        }
    }
}
