import Foundation
import Testing

@testable import EndpointKit

@Suite struct MemoryCacheStorageTests {
    static func entry(size: Int, variant: String? = nil) -> HTTPCache.Entry {
        HTTPCache.Entry(
            statusCode: 200,
            headers: HTTPHeaders(),
            body: Data(count: size - 256),
            requestDate: Date(),
            responseDate: Date(),
            secondaryKey: variant
        )
    }

    static func key(_ path: String, partition: String = "") -> HTTPCache.Key {
        HTTPCache.Key(partition: partition, method: .get, url: "https://api.test/\(path)")
    }

    @Test("Bounded in bytes: the least recently used goes first, and reading counts as a use")
    func leastRecentlyUsed() {
        let storage = MemoryCacheStorage(maximumSize: 3000, maximumEntrySize: 1000)
        for name in ["a", "b", "c"] { storage.store(Self.entry(size: 1000), for: Self.key(name)) }
        _ = storage.entries(for: Self.key("a"))
        storage.store(Self.entry(size: 1000), for: Self.key("d"))

        #expect(storage.entries(for: Self.key("b")).isEmpty)
        #expect(!storage.entries(for: Self.key("a")).isEmpty)
        #expect(!storage.entries(for: Self.key("d")).isEmpty)
        #expect(storage.currentSize == 3000)
    }

    @Test("An entry past the per-entry cap is not stored, and replaces nothing but its own variant")
    func entryCap() {
        let storage = MemoryCacheStorage(maximumSize: 10_000, maximumEntrySize: 1000)
        storage.store(Self.entry(size: 500, variant: "x"), for: Self.key("a"))
        storage.store(Self.entry(size: 500, variant: "y"), for: Self.key("a"))
        storage.store(Self.entry(size: 1001, variant: "z"), for: Self.key("a"))
        #expect(storage.entries(for: Self.key("a")).map(\.secondaryKey) == ["y", "x"])
        storage.store(Self.entry(size: 400, variant: "x"), for: Self.key("a"))
        #expect(storage.entries(for: Self.key("a")).map(\.secondaryKey) == ["x", "y"])
        #expect(storage.currentSize == 900)
    }

    @Test("Removing by URL reaches every partition and method")
    func removeByURL() {
        let storage = MemoryCacheStorage()
        storage.store(Self.entry(size: 300), for: Self.key("a", partition: "p1"))
        storage.store(Self.entry(size: 300), for: Self.key("a", partition: "p2"))
        storage.store(Self.entry(size: 300), for: Self.key("b", partition: "p1"))
        storage.removeEntries(forURL: "https://api.test/a")
        #expect(storage.count == 1)
        #expect(storage.currentSize == 300)
    }
}
