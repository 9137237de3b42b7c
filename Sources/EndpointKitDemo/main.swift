import EndpointKit
import EndpointKitTesting
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The README's first command: `swift run endpointkit-demo` runs against the built-in stub API;
// `--base-url URL [--token TOKEN]` runs the same calls against a real server; `--record FILE.har` records the run,
// and `--replay FILE.har` runs it again from the recording, with no server.

let usage = """
    usage: endpointkit-demo [--base-url URL] [--token TOKEN] [--record FILE.har | --replay FILE.har]

      With no options the demo talks to a built-in, in-process stub of its API.
      --base-url URL      send the same calls to a real server (GET featured, items/{id}, search?q=)
      --token TOKEN       the bearer token for the private search (default: the stub's token)
      --record FILE.har   record every exchange to FILE.har (HAR 1.2, secrets redacted)
      --replay FILE.har   answer every request from FILE.har: no server is asked; the output is the recorded run's
    The durable-write step always runs against the built-in stub (its child process is `--outbox-child DIR`).
    Built with the Postgres trait and with ENDPOINTKIT_POSTGRES_URL set, a last step runs two sender processes
    (`--fleet-sender SCHEMA NAME`) that drain one PostgreSQL outbox; it is left out with --record or --replay.
    With --record or --replay, timings are not printed, so that the two runs print the same.
    """

var baseURLArgument: String?
var tokenArgument: String?
var recordFile: String?
var replayFile: String?
var outboxChild: String?
var fleetSender: (schema: String, name: String)?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--base-url": baseURLArgument = arguments.popFirst()
    case "--token": tokenArgument = arguments.popFirst()
    case "--record": recordFile = arguments.popFirst()
    case "--replay": replayFile = arguments.popFirst()
    case "--outbox-child": outboxChild = arguments.popFirst()
    case "--fleet-sender":
        if let schema = arguments.popFirst(), let name = arguments.popFirst() { fleetSender = (schema, name) }
    case "-h", "--help":
        print(usage)
        exit(0)
    default:
        FileHandle.standardError.write(Data("unknown argument \(argument)\n\(usage)\n".utf8))
        exit(64)
    }
}

// The durable-write step's child process: it edits offline, then is killed.
if let outboxChild { await OutboxStep.runOfflineChild(directory: URL(fileURLWithPath: outboxChild)) }
#if Postgres
// The fleet step's sender processes.
if let fleetSender { await FleetStep.runSender(schema: fleetSender.schema, name: fleetSender.name) }
#endif

if recordFile != nil, replayFile != nil {
    FileHandle.standardError.write(Data("--record and --replay cannot go together\n\(usage)\n".utf8))
    exit(64)
}
var transport: any Transport
let baseURL: URL
if let baseURLArgument {
    guard let url = URL(string: baseURLArgument), url.host != nil else {
        FileHandle.standardError.write(Data("--base-url needs an absolute URL, got \(baseURLArgument)\n".utf8))
        exit(64)
    }
    baseURL = url
    transport = URLSessionTransport()
    print("EndpointKit demo against \(baseURL.absoluteString)\n")
} else if let url = DemoServer.baseURL {
    baseURL = url
    transport = DemoServer.makeTransport()
    print("EndpointKit demo against the built-in stub API at \(url.absoluteString)\n")
} else {
    exit(70)
}
/// Whether timings are printed: not in a run that is recorded or replayed, whose output is compared.
let isTimed = recordFile == nil && replayFile == nil
let recorder: HARTransport?
do {
    if let recordFile {
        recorder = try HARTransport(file: URL(fileURLWithPath: recordFile), mode: .record, live: transport)
        transport = recorder ?? transport
    } else {
        recorder = nil
    }
    if let replayFile { transport = try HARTransport(file: URL(fileURLWithPath: replayFile), mode: .replay) }
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(66)
}

// Every exchange is printed by the library's own logging step, with secrets redacted.
let client = EndpointClient(
    environment: ServerEnvironment(baseURL: baseURL),
    transport: transport,
    middleware: [
        Retry(RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(200))),
        ExchangeLogging { record in
            print("  ↔ \(isTimed ? record.description : untimed(record))")
            print("    request headers: \(record.requestHeaders)")
        },
    ]
)
let token = AccessToken(tokenArgument ?? DemoServer.token)
var failures = 0

@MainActor
func step(_ title: String, _ body: () async throws(EndpointError) -> Void) async {
    print("• \(title)")
    do {
        try await body()
    } catch {
        failures += 1
        print("  ✗ \(error)")
    }
    print("")
}

await step("Public endpoint: featured items") { () async throws(EndpointError) in
    let featured = try await client.response(for: .featuredItems)
    print("  ✓ \(featured.count) items: \(featured.map(\.name).joined(separator: ", "))")
}

await step("Private endpoint: search, with \(token)") { () async throws(EndpointError) in
    let results = try await client.response(for: .search(for: "tea"), using: token)
    print("  ✓ \(results.items.count) results for \"tea\"")
}

await step("Model loaded by ID through ModelLoader<Item>") { () async throws(EndpointError) in
    let loader = ModelLoader<Item>(client: client) { id in .item(id) }
    let item = try await loader.loadModel(withID: 42)
    print("  ✓ item 42 is \"\(item.name)\"")
}

await step("A model store: a list and a detail screen observe item 1; an edit shows at once; a failed one rolls back") {
    () async throws(EndpointError) in
    let store = ModelLoader<Item>(client: client) { id in .item(id) }
    let screens = ScreenLog()
    // Kept, and cancelled once the screens are done.
    let watchers = ["list", "detail"].map { screen in
        let watcher = Task {
            for try await item in store.publisher(forID: 1) { screens.show(screen, item.name) }
        }
        return watcher
    }
    await screens.wait(until: "Green tea")
    print("  ✓ both screens show \"Green tea\" (one GET, shared)")
    try await store.update(Item(id: 1, name: "Sencha")) { () async throws(EndpointError) -> Item? in
        // The screens already show the edit while it is on its way.
        await screens.wait(until: "Sencha")
        print("  ✓ both screens show \"Sencha\" before the PATCH is sent")
        return try await client.response(for: .rename(Item(id: 1, name: "Sencha")))
    }
    do throws(EndpointError) {
        try await store.update(Item(id: 1, name: "")) { () async throws(EndpointError) -> Item? in
            await screens.wait(until: "")
            return try await client.response(for: .rename(Item(id: 1, name: "")))
        }
    } catch {
        await screens.wait(until: "Sencha")
        print("  ✓ an empty name was refused (\(error.statusCode ?? 0)): both screens are back to \"Sencha\"")
    }
    for watcher in watchers { watcher.cancel() }
}

await step("Publisher: the same search as an AsyncSequence, iterated twice") { () async throws(EndpointError) in
    let publisher = client.publisher(for: .search(for: "oolong"), using: token)
    for pass in 1...2 {
        for try await results in publisher {
            print("  ✓ pass \(pass): \(results.items.map(\.name))")
        }
    }
}

await step("A paged list walked twice through the HTTP cache: the second walk is 304s") {
    () async throws(EndpointError) in
    for walk in 1...2 {
        var names: [String] = []
        var sources: [String] = []
        for try await page in client.pages(for: .catalogue, next: .link) {
            names += page.value.map(\.name)
            sources.append("\(page.source)")
        }
        print(
            "  ✓ walk \(walk): \(names.count) items in \(sources.count) pages, from \(sources.joined(separator: ", "))"
        )
    }
}

await step("A hostile ID stays inside one path segment, and a dot-segment is refused") {
    () async throws(EndpointError) in
    let request = try Endpoint.item(rawID: "x/admin?x=1#f").makeRequest(in: client.environment, with: ())
    print("  ✓ would send \(request.url?.absoluteString ?? "?")")
    do throws(EndpointError) {
        _ = try Endpoint.item(rawID: "../admin").makeRequest(in: client.environment, with: ())
        print("  ✗ ../admin was not refused")
    } catch {
        print("  ✓ ../admin is refused: \(error.kind)")
    }
}

await step("A typed error: an item that does not exist") { () async throws(EndpointError) in
    do throws(EndpointError) {
        _ = try await client.response(for: .item(999))
        print("  ✗ expected a 404")
    } catch {
        guard error.kind == .unacceptableStatus else { throw error }
        print("  ✓ \(error.kind), status \(error.statusCode ?? 0): \(error.bodySnippet ?? "")")
    }
}

await step("Endpoints generated from an OpenAPI description (Generator/Demo/demo-api.yaml)") {
    () async throws(EndpointError) in
    // findItems needs the description's bearer token: without `using: token` it does not compile.
    let found = try await client.response(for: .findItems(q: "tea"), using: token)
    print("  ✓ findItems: \(found.items.map(\.name).joined(separator: ", "))")
    do throws(EndpointError) {
        _ = try await client.response(for: .getCatalogueItem(itemId: 999))
        print("  ✗ expected a 404")
    } catch {
        guard let failure = try? error.documentedBody(as: Failure.self) else { throw error }
        print("  ✓ getCatalogueItem: status \(error.statusCode ?? 0), documented error \"\(failure.error)\"")
    }
}

await step("The decoded value with its response: status, headers, attempts, timing") { () async throws(EndpointError) in
    let response = try await client.exchange(for: .item(1))
    print(
        "  ✓ \(response.value.name): status \(response.statusCode), \(response.headers.count) header(s), "
            + "\(response.attempts) attempt(s)"
            + (isTimed ? ", first byte after \(milliseconds(response.timeToFirstByte))" : "")
    )
}

await step("A download to a file, with a progress bar") { () async throws(EndpointError) in
    // A folder of this run's own: demos run side by side must not download to one file.
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("endpointkit-demo-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let destination = folder.appendingPathComponent("endpointkit-demo-catalogue.bin")
    defer { try? FileManager.default.removeItem(at: folder) }
    var shown = -1
    for try await event in client.download(for: .catalogueFile, to: destination) {
        switch event {
        case .progress(let progress):
            // A bar per quarter passed, so that logs stay readable (a terminal app would redraw one line), and the
            // same however the events were grouped: progress is reported as it is read, and a slow reader gets
            // fewer, larger steps.
            let quarter = Int((progress.fractionCompleted ?? 0) * 4)
            let expected = progress.expectedBytes ?? 0
            while shown < quarter {
                shown += 1
                let bar = String(repeating: "█", count: shown * 5) + String(repeating: "░", count: 20 - shown * 5)
                print("  \(bar) \((expected * Int64(shown) / 4) >> 10) KiB of \(expected >> 10) KiB")
            }
        case .finished(let response):
            print(
                "  ✓ saved \(response.value.lastPathComponent)"
                    + (isTimed ? " in \(milliseconds(response.duration))" : "")
            )
        }
    }
}

await step("A streamed event feed: Server-Sent Events as they arrive") { () async throws(EndpointError) in
    let policy = ServerSentEvents.ReconnectPolicy(defaultDelay: .milliseconds(10))
    for try await event in try await client.stream(for: .storeEvents, policy: policy) {
        print("  ✓ \(event.type) #\(event.id ?? "-"): \(event.data.replacingOccurrences(of: "\n", with: " / "))")
    }
}

await step("A write that survives: an edit made offline, the process killed, the edit sent after a restart") {
    () async throws(EndpointError) in
    try await OutboxStep.run()
}

#if Postgres
// Left out of a recording or a replay: its senders are processes of their own, outside the recording.
if recordFile == nil, replayFile == nil {
    await step("A fleet: two sender processes drain one PostgreSQL outbox") {
        () async throws(EndpointError) in
        do { try await FleetStep.run() } catch let error as EndpointError { throw error } catch {
            throw EndpointError(.invalidRequest, "the fleet step failed: \(error)")
        }
    }
}
#endif

print("Calling .search(for:) without a token does not compile: the private kind needs an AccessToken.")
if let recorder, let recordFile {
    do {
        try recorder.save()
        // On standard error: standard output stays the same as a replayed run's.
        FileHandle.standardError.write(
            Data("Recorded \(recorder.archive.log.entries.count) exchanges to \(recordFile).\n".utf8)
        )
    } catch {
        print("The recording could not be written: \(error)")
        failures += 1
    }
}
if failures > 0 {
    print("\(failures) step(s) failed.")
    exit(1)
}

/// An exchange's line without its duration: `GET https://… → 200, 512 B (attempt 1)`.
func untimed(_ record: ExchangeRecord) -> String {
    let outcome = record.statusCode.map { "\($0)" } ?? "failed (\(record.error?.kind.description ?? "error"))"
    let size = record.isStreamed ? "streamed" : "\(record.bytesReceived) B"
    return "\(record.method) \(record.redactedURL) → \(outcome), \(size) (attempt \(record.attempt))"
}

/// `duration` in milliseconds with one decimal, as a person reads it.
func milliseconds(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    return String(format: "%.1f ms", Double(seconds) * 1000 + Double(attoseconds) / 1e15)
}

/// What each demo screen shows now, and a wait until both show the same name.
final class ScreenLog: @unchecked Sendable {
    // Safe because every access to `shown` and `waiters` holds `lock`.
    private let lock = NSLock()
    private var shown: [String: String] = [:]
    private var waiters: [(name: String, continuation: CheckedContinuation<Void, Never>)] = []

    func show(_ screen: String, _ name: String) {
        lock.lock()
        shown[screen] = name
        let both = Set(shown.values).count == 1 && shown.count == 2 ? name : nil
        let ready = waiters.filter { $0.name == both }
        waiters.removeAll { $0.name == both }
        lock.unlock()
        for waiter in ready { waiter.continuation.resume() }
    }

    func wait(until name: String) async {
        await withCheckedContinuation { continuation in
            lock.lock()
            if shown.count == 2, Set(shown.values) == [name] {
                lock.unlock()
                continuation.resume()
                return
            }
            waiters.append((name, continuation))
            lock.unlock()
        }
    }
}
