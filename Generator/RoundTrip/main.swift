// The driver of the generated endpoints' round trip (scripts/openapi-roundtrip.sh): built with a module generated
// from a description and the `callEveryOperation` the generator writes for it (--round-trip-calls), it calls every
// operation the server made samples for once against the fixture server made from the same description, with
// arguments decoded from those samples, and prints one line per operation and the counts.
//
//     round-trip SAMPLES.json PORT
import EndpointKit
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The samples, the client, and what each call gave.
final class RoundTrip: Sendable {
    enum Outcome: String, Sendable, CaseIterable {
        case decoded = "response decoded"
        case notDecoded = "response not decoded"
        case refused = "request refused by the client"
        case failed = "call failed"
        case noSample = "no sample argument"
        case skipped = "not called"
        case outOfSample = "not in the sample"
    }

    struct SampleError: Error, CustomStringConvertible {
        var description: String
    }

    let client: EndpointClient
    private let samples: [String: [String: Data]]
    /// Whether the server made samples for some operations only: the others are not called.
    private let sampled: Bool
    private let outcomes = Locked<[(String, Outcome, String)]>([])

    init(samples file: URL, port: Int) throws {
        let root = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any] ?? [:]
        let base = root["base"] as? String ?? ""
        var samples: [String: [String: Data]] = [:]
        for (operation, values) in root["operations"] as? [String: [String: Any]] ?? [:] {
            samples[operation] = try values.mapValues {
                try JSONSerialization.data(withJSONObject: $0, options: .fragmentsAllowed)
            }
        }
        self.samples = samples
        sampled = root["sampled"] as? Bool ?? false
        let url = URL(string: "http://127.0.0.1:\(port)\(base)") ?? URL(fileURLWithPath: "/")
        client = EndpointClient(environment: ServerEnvironment(baseURL: url))
    }

    /// The sample of `operation`'s argument `key`, decoded as the argument's type (`nil` for an optional one the
    /// server made no sample of).
    func value<Value: Decodable>(_ operation: String, _ key: String) throws -> Value {
        let json = samples[operation]?[key] ?? Data("null".utf8)
        let text = String(decoding: json, as: UTF8.self)
        if text.hasPrefix("{\"$unavailable\"") {
            throw SampleError(description: "the server could not make a sample of \(key): \(text)")
        }
        do {
            return try OpenAPICoding.decoder.decode(Value.self, from: json)
        } catch {
            throw SampleError(
                description:
                    "\(key): \(String(decoding: json.prefix(120), as: UTF8.self)) is not a \(Value.self): \(error)"
            )
        }
    }

    /// The multipart body of `operation`'s sample: a part per member the server drew, a file for a binary member,
    /// JSON text in a part of type `application/json` for an object or a list.
    func multipart(_ operation: String) throws -> MultipartBody {
        struct Sample: Decodable {
            var parts: [Part]
            enum CodingKeys: String, CodingKey { case parts = "$parts" }
        }
        struct Part: Decodable {
            var name: String
            var text: String
            var file: Bool
            var json: Bool
        }
        let json = samples[operation]?["body"] ?? Data()
        guard let sample = try? JSONDecoder().decode(Sample.self, from: json) else {
            throw SampleError(description: "no multipart sample: \(String(decoding: json.prefix(200), as: UTF8.self))")
        }
        return MultipartBody(
            sample.parts.map { part in
                if part.file { return .file(part.name, filename: "sample.bin", data: Data(part.text.utf8)) }
                var field = MultipartBody.Part.field(part.name, part.text)
                if part.json { field.contentType = "application/json" }
                return field
            }
        )
    }

    func call(_ operation: String, _ body: (EndpointClient) async throws -> Void) async {
        guard !sampled || samples[operation] != nil else { return record(operation, .outOfSample, "") }
        do {
            try await body(client)
            record(operation, .decoded, "")
        } catch let error as SampleError {
            record(operation, .noSample, error.description)
        } catch let error as EndpointError {
            let outcome: Outcome =
                switch error.kind {
                case .decodingFailed: .notDecoded
                case .invalidRequest, .encodingFailed: .refused
                default: .failed
                }
            record(operation, outcome, error.description)
        } catch {
            record(operation, .failed, "\(error)")
        }
    }

    func skip(_ operation: String, _ reason: String) {
        let inSample = !sampled || samples[operation] != nil
        record(operation, inSample ? .skipped : .outOfSample, inSample ? reason : "")
    }

    private func record(_ operation: String, _ outcome: Outcome, _ detail: String) {
        outcomes.withLock { $0.append((operation, outcome, detail)) }
        print("round trip: \(operation): \(outcome.rawValue)\(detail.isEmpty ? "" : ": " + detail.prefix(400))")
    }

    var counts: [Outcome: Int] {
        outcomes.withLock { Dictionary(grouping: $0, by: \.1).mapValues(\.count) }
    }
}

/// A value behind a lock.
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let port = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: round-trip SAMPLES.json PORT\n".utf8))
    exit(64)
}
let trip = try RoundTrip(samples: URL(fileURLWithPath: arguments[1]), port: port)
await callEveryOperation(trip)
let counts = trip.counts
let total = counts.values.reduce(0, +)
print(
    "round trip: \(total) operations: "
        + RoundTrip.Outcome.allCases.map { "\($0.rawValue) \(counts[$0] ?? 0)" }.joined(separator: ", ")
)
