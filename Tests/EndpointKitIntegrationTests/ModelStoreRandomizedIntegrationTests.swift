import EndpointKit
import EndpointKitTesting
import Foundation
import Testing

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

/// The highest confirmed version each observer has seen per ID; a lower one afterwards is a violation.
private final class MonotonicityCheck: @unchecked Sendable {
    // Safe because every access to `seen` and `found` holds `lock`.
    private let lock = NSLock()
    private var seen: [Int: Int] = [:]
    private var found: [String] = []

    func saw(_ item: Versioned, observer: Int) {
        guard !item.pending else { return }
        lock.lock()
        defer { lock.unlock() }
        let key = observer * 100 + item.id
        if let last = seen[key], item.version < last {
            found.append("observer \(observer) saw item \(item.id) v\(item.version) after v\(last)")
        }
        seen[key] = max(seen[key] ?? 0, item.version)
    }

    var violations: [String] {
        lock.lock()
        defer { lock.unlock() }
        return found
    }
}

/// A seeded random walk of loads, invalidations, optimistic writes, failures and cancellations against the fault
/// server's versioned items, with observers watching: at the end every entry equals the server's, and no observer
/// saw a confirmed value older than one it had seen. (In process, with a server answering out of order, it found
/// a rollback that put back a value older than one a load had confirmed.)
@Suite(.timeLimit(.minutes(1))) struct ModelStoreRandomizedIntegrationTests {
    @Test("1,000 interleaved operations end with the server's values, never showing an observer an older one")
    func randomWalk() async throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["EK_SEED"] ?? "") ?? 20_261_127
        print("ModelStoreRandomizedIntegrationTests seed \(seed) (rerun with EK_SEED=\(seed))")
        var random = SeededGenerator(seed: seed)
        let key = UUID().uuidString
        let client = EndpointClient(environment: ServerEnvironment(baseURL: try TestServers.fault()))
        let loader = ModelLoader<Versioned>(client: client, policy: ModelStorePolicy(freshness: .milliseconds(1))) {
            Endpoint<EndpointKinds.Public, Versioned>(path: "versioned/\(key)/\($0)")
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
                                path: "versioned/\(key)/\(id)",
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

        // Settle: everything stale, then read back, and read the server's own values apart.
        loader.invalidateAll()
        let loaded = try await loader.loadModels(withIDs: Array(0..<8))
        var expected: [Versioned] = []
        for id in 0..<8 {
            var direct = Endpoint<EndpointKinds.Public, Versioned>(path: "versioned/\(key)/\(id)")
            direct.options.isCached = false
            expected.append(try await client.response(for: direct))
        }
        for observer in observers { observer.cancel() }
        for observer in observers { _ = await observer.result }

        let differences = zip(loaded, expected).filter { $0 != $1 }.map { "store \($0), server \($1)" }
        #expect(differences.isEmpty, "seed \(seed): \(differences)")
        #expect(check.violations.isEmpty, "seed \(seed): \(check.violations.prefix(5))")
    }
}
