#if Postgres
import EndpointKit
import EndpointKitPostgres
import Foundation
import Logging
import PostgresNIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The demo's fleet (with the `Postgres` trait and `ENDPOINTKIT_POSTGRES_URL` set): it queues nine renames in
/// PostgreSQL, each in a transaction of its own, then two sender processes of this executable drain the one queue
/// between them, each item's renames in order, each sent once. Each sender talks to its own copy of the built-in
/// stub API.
enum FleetStep {
    static let logger: Logger = {
        var logger = Logger(label: "endpointkit.demo.fleet")
        logger.logLevel = .error
        return logger
    }()

    /// The pool for `ENDPOINTKIT_POSTGRES_URL`, or `nil` when it is not set.
    static func postgres() -> PostgresClient? {
        guard let value = ProcessInfo.processInfo.environment["ENDPOINTKIT_POSTGRES_URL"],
            let configuration = PostgresClient.Configuration(loopbackURL: value)
        else { return nil }
        return PostgresClient(configuration: configuration, backgroundLogger: logger)
    }

    static func outbox(_ postgres: PostgresClient, schema: String, instance: String) throws(EndpointError)
        -> PostgresOutbox<EndpointKinds.Public>
    {
        let client = EndpointClient(
            environment: ServerEnvironment(baseURL: OutboxStep.baseURL),
            transport: DemoServer.makeTransport()
        )
        let configuration = PostgresOutboxConfiguration(
            schema: schema,
            instance: instance,
            leaseDuration: .seconds(5),
            pollInterval: .milliseconds(200),
            groupsPerClaim: 1
        )
        return try PostgresOutbox(postgres: postgres, client: client, configuration: configuration, logger: logger)
    }

    /// Queues the renames, runs the two senders, and waits until every rename is sent.
    static func run() async throws {
        guard let postgres = postgres() else {
            print("  - skipped: set ENDPOINTKIT_POSTGRES_URL (`scripts/postgres.sh start DIR`, then source")
            print("    DIR/postgres.env) to watch two sender processes drain one PostgreSQL outbox")
            return
        }
        let schema = "demo_" + UUID().uuidString.prefix(8).lowercased()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await postgres.run() }
            defer { group.cancelAll() }
            let outbox = try outbox(postgres, schema: schema, instance: "queue")
            try await outbox.prepare()
            var ids: [String] = []
            for round in 1...3 {
                for id in 1...3 {
                    let renamed = Item(id: id, name: "\(DemoServer.catalogue[id - 1].name), take \(round)")
                    ids.append(try await outbox.enqueue(.rename(renamed), group: "items/\(id)").id)
                }
            }
            print("  ✓ 9 renames of items 1, 2 and 3 queued in PostgreSQL (schema \(schema)), three per item")
            let senders = ["A", "B"].map { startSender(schema: schema, name: $0) }
            try await waitUntilSent(ids, outbox)
            for sender in senders { sender.interrupt() }
            for sender in senders { sender.waitUntilExit() }
            print("  ✓ both senders stopped gracefully; all 9 read back from PostgreSQL as sent")
            try await postgres.query(PostgresQuery(unsafeSQL: "DROP SCHEMA \(schema) CASCADE"), logger: logger)
        }
    }

    /// Reads each write's status until all are sent (30 s at most).
    private static func waitUntilSent(_ ids: [String], _ outbox: PostgresOutbox<EndpointKinds.Public>) async throws {
        for _ in 0..<300 {
            var sent = 0
            for id in ids where try await outbox.status(of: id) == .sent(statusCode: 200) { sent += 1 }
            if sent == ids.count { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw EndpointError(.invalidRequest, "the fleet did not send the 9 renames in 30 s")
    }

    /// Runs this executable as sender `name`; SIGINT stops it gracefully.
    private static func startSender(schema: String, name: String) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        process.arguments = ["--fleet-sender", schema, name]
        fflush(nil)
        try? process.run()
        return process
    }

    /// A sender process: sends what it can claim until SIGINT, printing each write it sent.
    static func runSender(schema: String, name: String) async -> Never {
        guard let postgres = postgres(), let outbox = try? outbox(postgres, schema: schema, instance: name) else {
            exit(1)
        }
        signal(SIGINT, SIG_IGN)
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT)
        interrupt.setEventHandler { outbox.stop() }
        interrupt.resume()
        let changes = outbox.changes()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await postgres.run() }
            group.addTask {
                for await change in changes {
                    guard case .sent(let write, let status) = change else { continue }
                    FileHandle.standardOutput.write(Data("  ✓ sender \(name) sent \(write) → \(status)\n".utf8))
                }
            }
            try? await outbox.run()
            group.cancelAll()
        }
        withExtendedLifetime(interrupt) {}
        exit(0)
    }
}
#endif
