import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What runs under an outbox's lock: memory only. A store's save of what the server confirmed (a
/// `DiskModelPersistence` writes a file) runs after the lock is released, before the write's file goes.
@Suite(.timeLimit(.minutes(1)))
struct OutboxLockTests {
    private let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)")

    /// A persistence whose save waits, on the thread that saves, until the test has read the outbox's queue: that
    /// read takes the outbox's lock, so it can only finish if the save runs outside it.
    final class GatedPersistence: ModelPersistence, @unchecked Sendable {
        let saving = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var saves: [String] = []

        var saved: [String] { lock.withLock { saves } }
        func storedModels() -> [Data] { [] }
        func removeAll() {}
        func save(_ data: Data, forKey key: String) {
            lock.withLock { saves.append(key) }
            saving.signal()
            release.wait()
        }
    }

    @Test("A confirmed value is saved after the outbox's lock: the queue can be read while the save is under way")
    func saveOutsideTheLock() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let stub = StubTransport(replies: [.json(#"{"id": "n1", "text": "answered"}"#)])
        let client = OutboxTestSupport.client(stub)
        let persistence = GatedPersistence()
        let loader = ModelLoader<OutboxNote>(client: client, persistence: persistence) { id in
            Endpoint<EndpointKinds.Public, OutboxNote>(path: "notes/\(id)")
        }
        let outbox = try Outbox<EndpointKinds.Public>(directory: directory, client: client)
        loader.attach(outbox)
        try loader.update(
            OutboxNote(id: "n1", text: "edited"),
            sending: OutboxTestSupport.save(OutboxNote(id: "n1", text: "edited")),
            through: outbox
        )

        // On a thread of its own: waiting on a semaphore must not hold one of the cooperative pool's threads.
        let readWhileSaving = await withCheckedContinuation { continuation in
            Thread {
                persistence.saving.wait()
                let reader = DispatchSemaphore(value: 0)
                let count = Locked(-1)
                Thread {
                    count.withLock { $0 = outbox.pending.count }
                    reader.signal()
                }.start()
                // The read blocks for as long as the saver holds the outbox's lock; 10 s tells a deadlock apart.
                let read = reader.wait(timeout: .now() + 10) == .success
                persistence.release.signal()
                if !read { reader.wait() }
                continuation.resume(returning: read ? count.withLock { $0 } : nil)
            }.start()
        }

        #expect(readWhileSaving != nil, "the queue could not be read while a confirmed value was being saved")
        await outbox.waitUntilIdle()
        #expect(persistence.saved.count == 1)
        #expect(outbox.pending.isEmpty)
    }
}
