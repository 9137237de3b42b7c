// The outbox's crash harness's other process: it queues numbered writes in an outbox and lets it send them, until
// the harness kills it (SIGKILL) or every write is sent. Only public API.
//
//     EndpointKitOutboxWriter DIRECTORY SERVER KEY FROM COUNT GROUPS
//
// Write i (FROM ≤ i < COUNT) is `POST SERVER/idem/KEY/g(i % GROUPS)?i=i` with the body `wi`, queued in group
// g(i % GROUPS). Every 8th write has the fault server hold its answer 30 ms after applying it, and every 20th applied
// write loses its answer (the connection closes), so that kills land in those windows too. It prints
//   `opened PENDING DAMAGED` once the outbox is open (writes a last run left, files set aside),
//   `queued i` once write i is on disk,
//   `done` once the outbox is empty after the last write.
// A write a last run queued but did not report is found among the pending ones: the next write is the one after.
import EndpointKit
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes `line` to standard output at once (unbuffered): the harness must see it before a kill.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
guard arguments.count == 7, let server = URL(string: arguments[2]), let from = Int(arguments[4]),
    let count = Int(arguments[5]), let groups = Int(arguments[6])
else {
    FileHandle.standardError.write(Data("usage: EndpointKitOutboxWriter DIRECTORY SERVER KEY FROM COUNT GROUPS\n".utf8))
    exit(2)
}
let key = arguments[3]
var defaults = RequestDefaults()
defaults.timeout = .seconds(2)
let client = EndpointClient(environment: ServerEnvironment(baseURL: server), defaults: defaults)
var policy = OutboxPolicy()
policy.initialBackoff = .milliseconds(10)
policy.maximumBackoff = .milliseconds(200)
let outbox = try Outbox<EndpointKinds.Public>(
    directory: URL(fileURLWithPath: arguments[1]),
    client: client,
    policy: policy
)
/// With OUTBOX_WRITER_TRACE set, every change on standard error; cancelled at the end.
var tracer: Task<Void, Never>?
if ProcessInfo.processInfo.environment["OUTBOX_WRITER_TRACE"] != nil {
    let changes = outbox.changes()
    tracer = Task {
        let start = ContinuousClock.now
        for await change in changes {
            FileHandle.standardError.write(Data("\(ContinuousClock.now - start) \(change)\n".utf8))
        }
    }
}
let pending = outbox.pending
say("opened \(pending.count) \(outbox.damagedFiles.count)")

/// The number a pending write carries in its query.
func number(of write: OutboxWrite) -> Int? {
    URLComponents(string: write.request.redactedURL)?.queryItems?.first { $0.name == "i" }?.value.flatMap { Int($0) }
}

let start = max(from, (pending.compactMap(number).max() ?? -1) + 1)
for index in start..<max(start, count) {
    var query = [URLQueryItem(name: "i", value: String(index)), URLQueryItem(name: "drop-one-in", value: "20")]
    if index % 8 == 0 { query.append(URLQueryItem(name: "delay-ms", value: "30")) }
    let endpoint = Endpoint<EndpointKinds.Public, Data>(
        method: .post,
        path: "idem/\(key)/g\(index % groups)",
        queryItems: query,
        body: DataBody(Data("w\(index)".utf8), contentType: "text/plain")
    )
    try outbox.enqueue(endpoint, group: "g\(index % groups)")
    say("queued \(index)")
}
// Until the queue is empty, woken by the outbox's own changes (a paused group's resumption, a write sent); the
// sequence is opened before the look, so that no change between the two is missed.
let progress = outbox.changes()
if !outbox.pending.isEmpty {
    for await _ in progress where outbox.pending.isEmpty { break }
}
tracer?.cancel()
say("done")
