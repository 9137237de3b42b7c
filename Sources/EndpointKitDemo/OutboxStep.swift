import EndpointKit
import EndpointKitTesting
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The demo's durable write: a child process edits an item with no network, through an ``Outbox``, and is killed;
/// the demo opens the outbox again, shows the edit as pending, and sends it to the built-in stub API.
enum OutboxStep {
    static let renamed = Item(id: 2, name: "Earl Grey")

    /// The killed child: queues the edit through an outbox whose transport has no network, shows it, and dies by
    /// SIGKILL before anything could send it.
    static func runOfflineChild(directory: URL) async -> Never {
        let offline = StubTransport { _ in
            throw EndpointError(.transportFailed, "no network (the demo's child runs offline)")
        }
        let client = EndpointClient(environment: ServerEnvironment(baseURL: baseURL), transport: offline)
        do {
            let outbox = try Outbox<EndpointKinds.Public>(directory: directory, client: client)
            let loader = ModelLoader<Item>(client: client) { .item($0) }
            try loader.update(renamed, sending: .rename(renamed), through: outbox)
            let shown = await loader.states(forID: renamed.id).first { $0.isWritePending }
            // Written at once, unbuffered: the process is killed next.
            let line =
                "  ✓ a child process renamed item 2 to \"\(shown?.value?.name ?? "?")\" with no network: "
                + "the edit is on disk and shown, pending\n"
            FileHandle.standardOutput.write(Data(line.utf8))
        } catch {
            print("  ✗ \(error)")
            exit(1)
        }
        kill(getpid(), SIGKILL)
        exit(1)
    }

    static var baseURL: URL { DemoServer.baseURL ?? URL(fileURLWithPath: "/") }

    /// Runs the child, then the restart: the edit shown again, sent, and read back from the server.
    static func run() async throws(EndpointError) {
        // A directory of this run's own: demos run side by side must not share a queue.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "endpointkit-demo-outbox-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: directory) }
        let killed = await runChild(directory: directory)
        print("  ✓ the child was killed (\(killed ? "SIGKILL" : "not by SIGKILL")) before it could send the edit")

        // The restart: a new outbox on the same directory, now online, and a new loader that attaches to it.
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: baseURL),
            transport: DemoServer.makeTransport()
        )
        // Nothing is sent before the loader shows what the last run left.
        let outbox = try Outbox<EndpointKinds.Public>(directory: directory, client: client, startsSending: false)
        let changes = outbox.changes()
        let loader = ModelLoader<Item>(client: client) { .item($0) }
        loader.attach(outbox)
        let pending = await loader.states(forID: renamed.id).first { $0.value != nil }
        guard let pending, pending.isWritePending, pending.value == renamed else {
            throw EndpointError(.invalidRequest, "the restarted loader does not show the edit as pending")
        }
        print("  ✓ after the restart the screen shows \"\(renamed.name)\" again, pending")
        outbox.resume()
        for await change in changes {
            if case .sent(let write, let status) = change {
                // The write as the outbox read it back from the child's file: its key is the child's.
                let received = DemoServer.renamed.key(for: renamed.id)
                guard received == "\"\(write.idempotencyKey)\"" else {
                    throw EndpointError(.invalidRequest, "the edit reached the server with another key")
                }
                print("  ✓ sent with the key the child gave it: \(write.request) → \(status)")
                break
            }
            if case .refused(_, let error) = change { throw error }
        }
        let server = try await client.response(for: .item(renamed.id))
        print("  ✓ the server now has \"\(server.name)\"; nothing is left on disk (\(outbox.pending.count) pending)")
    }

    /// Runs this executable as the offline child; returns whether it died by SIGKILL.
    private static func runChild(directory: URL) async -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        process.arguments = ["--outbox-child", directory.path]
        // The child writes to the same output: what this process printed goes first.
        fflush(nil)
        // Kept until it has ended: its termination handler is what resumes this wait.
        defer { withExtendedLifetime(process) {} }
        return await withCheckedContinuation { continuation in
            process.terminationHandler = { process in
                continuation.resume(
                    returning: process.terminationReason == .uncaughtSignal
                        && process.terminationStatus == SIGKILL
                )
            }
            do { try process.run() } catch {
                process.terminationHandler = nil
                continuation.resume(returning: false)
            }
        }
    }
}
