import Foundation

/// An ``HTTPCache/Storage`` in memory, bounded in bytes, that drops the least recently used entries first: the
/// storage of every client's default cache.
///
///     let cache = HTTPCache(storage: MemoryCacheStorage(maximumSize: 64 << 20))
///
/// Sizes are ``HTTPCache/Entry/size``: the body, the headers and a fixed overhead per entry.
public final class MemoryCacheStorage: HTTPCache.Storage {
    /// The most bytes all entries together may take.
    public let maximumSize: Int
    /// The most bytes one entry may take; a larger response is not stored.
    public let maximumEntrySize: Int

    private let state = Locked(State())

    private struct Slot {
        var variants: [HTTPCache.Entry]
        var size: Int
        var lastUse: UInt64
    }

    private struct State {
        var slots: [HTTPCache.Key: Slot] = [:]
        var keysByURL: [String: Set<HTTPCache.Key>] = [:]
        var size = 0
        var tick: UInt64 = 0

        mutating func remove(_ key: HTTPCache.Key) {
            guard let slot = slots.removeValue(forKey: key) else { return }
            size -= slot.size
            keysByURL[key.url]?.remove(key)
            if keysByURL[key.url]?.isEmpty == true { keysByURL[key.url] = nil }
        }
    }

    /// Creates a storage of at most `maximumSize` bytes (16 MiB unless given), each entry at most
    /// `maximumEntrySize` (1 MiB unless given, and never more than `maximumSize`).
    public init(maximumSize: Int = 16 << 20, maximumEntrySize: Int = 1 << 20) {
        self.maximumSize = max(0, maximumSize)
        self.maximumEntrySize = min(max(0, maximumEntrySize), self.maximumSize)
    }

    /// The bytes all entries take now.
    public var currentSize: Int { state.withLock { $0.size } }

    /// The number of keys stored now.
    public var count: Int { state.withLock { $0.slots.count } }

    /// The keys stored now, in no order.
    public var keys: [HTTPCache.Key] { state.withLock { Array($0.slots.keys) } }

    /// The variants stored under `key`, newest first; reading counts as a use.
    public func entries(for key: HTTPCache.Key) -> [HTTPCache.Entry] {
        state.withLock { state in
            guard var slot = state.slots[key] else { return [] }
            state.tick += 1
            slot.lastUse = state.tick
            state.slots[key] = slot
            return slot.variants
        }
    }

    /// Stores `entry` under `key`, replacing the variant with its secondary key.
    public func store(_ entry: HTTPCache.Entry, for key: HTTPCache.Key) {
        let entrySize = entry.size
        state.withLock { state in
            var slot = state.slots[key] ?? Slot(variants: [], size: 0, lastUse: 0)
            state.remove(key)
            slot.variants.removeAll { $0.secondaryKey == entry.secondaryKey }
            if entrySize <= maximumEntrySize { slot.variants.insert(entry, at: 0) }
            slot.size = slot.variants.reduce(0) { $0 + $1.size }
            // A key whose variants together pass the entry bound keeps the newest that fit.
            while slot.size > maximumEntrySize, let last = slot.variants.popLast() { slot.size -= last.size }
            guard !slot.variants.isEmpty else { return }
            state.tick += 1
            slot.lastUse = state.tick
            state.slots[key] = slot
            state.keysByURL[key.url, default: []].insert(key)
            state.size += slot.size
            guard state.size > maximumSize else { return }
            // Least recently used out first, until everything fits.
            let order = state.slots.sorted { $0.value.lastUse < $1.value.lastUse }.map(\.key)
            for old in order where state.size > maximumSize { state.remove(old) }
        }
    }

    /// Removes every variant under `key`.
    public func removeEntries(for key: HTTPCache.Key) {
        state.withLock { $0.remove(key) }
    }

    /// Removes every entry for `url`, in every partition.
    public func removeEntries(forURL url: String) {
        state.withLock { state in
            for key in state.keysByURL[url] ?? [] { state.remove(key) }
        }
    }

    /// Removes every entry.
    public func removeAll() {
        state.withLock { $0 = State() }
    }
}
