import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An item with the version the server gave it; `pending` marks an optimistic value not yet confirmed.
private struct Versioned: Codable, Sendable, Identifiable, Equatable {
    var id: Int
    var version: Int
    var name: String
    var pending = false
}

/// A server of 8 items that counts versions: GET answers the item, PATCH (unless its `X-Fail` header says so)
/// stores the new name as the next version and answers the item.
private final class VersionServer: Sendable {
    let items = Locked((0..<8).map { Versioned(id: $0, version: 1, name: "item \($0)") })
    let transport: StubTransport

    init() {
        let items = self.items
        let arrivals = Locked(0)
        transport = StubTransport { request in
            // A server that answers out of order: each request yields a varying number of turns first, decided
            // by its arrival number (no clock), so that loads and writes overlap.
            let arrival = arrivals.withLock { count in
                count += 1
                return count
            }
            for _ in 0..<(arrival &* 2_654_435_761 % 64) { await Task.yield() }
            let id = Int(request.url.lastPathComponent) ?? 0
            if request.method == .patch {
                if request.headers["X-Fail"] == "1" { return .status(500) }
                let name = String(decoding: request.body?.data ?? Data(), as: UTF8.self)
                let item = items.withLock { items -> Versioned in
                    items[id].version += 1
                    items[id].name = name
                    return items[id]
                }
                return try .response(
                    status: 200,
                    headers: ["Content-Type": "application/json"],
                    body: JSONEncoder().encode(item)
                )
            }
            let item = items.withLock { $0[id] }
            return try .response(
                status: 200,
                headers: ["Content-Type": "application/json"],
                body: JSONEncoder().encode(item)
            )
        }
    }
}

/// The highest confirmed version each observer has seen per ID; a lower one afterwards is a violation.
private final class MonotonicityCheck: Sendable {
    private let state = Locked((seen: [Int: Int](), violations: [String]()))

    func saw(_ item: Versioned, observer: Int) {
        guard !item.pending else { return }
        state.withLock { state in
            let key = observer * 100 + item.id
            if let last = state.seen[key], item.version < last {
                state.violations.append("observer \(observer) saw item \(item.id) v\(item.version) after v\(last)")
            }
            state.seen[key] = max(state.seen[key] ?? 0, item.version)
        }
    }

    var violations: [String] { state.withLock { $0.violations } }
}

/// A seeded random walk of loads, invalidations, optimistic writes, failures and cancellations with observers
/// watching: at the end every entry equals the server's, and no observer saw a confirmed value older than one it
/// had seen.
@Suite(.timeLimit(.minutes(1))) struct ModelStoreRandomizedTests {
    @Test("1,000 interleaved operations end with the server's values, never showing an observer an older one")
    func randomWalk() async throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["EK_SEED"] ?? "") ?? UInt64.random(in: 1...UInt64.max)
        print("ModelStoreRandomizedTests seed \(seed) (rerun with EK_SEED=\(seed))")
        var random = SeededGenerator(seed: seed)
        let server = VersionServer()
        let client = EndpointClient(environment: Fixture.environment, transport: server.transport)
        let loader = ModelLoader<Versioned>(client: client, policy: ModelStorePolicy(freshness: .milliseconds(1))) {
            Endpoint<EndpointKinds.Public, Versioned>(path: "items/\($0)")
        }
        let check = MonotonicityCheck()
        let observers = (0..<6).map { observer in
            Task {
                for try await item in loader.publisher(forID: observer % 8) { check.saw(item, observer: observer) }
            }
        }

        enum Operation {
            case load, invalidate
            case write(fails: Bool)
            case cancelledLoad, invalidateAll
        }
        let operations: [(Operation, Int)] = (0..<1_000).map { _ in
            let id = Int(random.next() % 8)
            switch random.next() % 10 {
            case 0...3: return (.load, id)
            case 4, 5: return (.invalidate, id)
            case 6, 7: return (.write(fails: random.next() % 3 == 0), id)
            case 8: return (.cancelledLoad, id)
            default: return (.invalidateAll, id)
            }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, (operation, id)) in operations.enumerated() {
                if index >= 16 { try await group.next() }
                group.addTask {
                    switch operation {
                    case .load:
                        _ = try await loader.loadModel(withID: id)
                    case .invalidate:
                        loader.invalidate(id: id)
                    case .invalidateAll:
                        loader.invalidateAll()
                    case .cancelledLoad:
                        let task = Task { try await loader.loadModel(withID: id) }
                        task.cancel()
                        _ = await task.result
                    case .write(let fails):
                        let current = try await loader.loadModel(withID: id)
                        let name = "write \(index)"
                        let optimistic = Versioned(id: id, version: current.version, name: name, pending: true)
                        _ = try? await loader.update(optimistic) { () async throws(EndpointError) -> Versioned? in
                            var patch = Endpoint<EndpointKinds.Public, Versioned>(
                                method: .patch,
                                path: "items/\(id)",
                                body: DataBody(Data(name.utf8))
                            )
                            if fails { patch.headers["X-Fail"] = "1" }
                            return try await client.response(for: patch)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }

        // Settle: everything stale, then read back.
        loader.invalidateAll()
        let expected = server.items.withLock { $0 }
        let loaded = try await loader.loadModels(withIDs: Array(0..<8))
        for observer in observers { observer.cancel() }
        for observer in observers { _ = await observer.result }

        #expect(loaded == expected, "seed \(seed)")
        #expect(check.violations.isEmpty, "seed \(seed): \(check.violations.prefix(5))")
    }
}

/// xorshift64*, seeded: the same operations for the same seed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }
    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
}
