#if Observability && AsyncHTTPClient
import EndpointKit
import EndpointKitObservability
import EndpointKitTesting
import Foundation
import InMemoryLogging
import InMemoryTracing
import Logging
import MetricsTestKit
import Testing
import Tracing

/// Calls that carry credentials everywhere a caller or a server can put them leave none in a span, a metric
/// dimension or a log line.
@Suite(.timeLimit(.minutes(3)))
struct SecretFuzzTests {
    /// A random credential: a marker no URL, key or status holds, then random letters and digits.
    private static func secret(_ generator: inout SeededGenerator) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        return "Zq"
            + String(
                (0..<Int.random(in: 10...24, using: &generator)).map { _ in
                    alphabet.randomElement(using: &generator) ?? "x"
                }
            )
    }

    /// A POST with `values` as secrets: three in the query, three in headers, one in the JSON body.
    private static func endpoint(
        _ path: EndpointPath,
        carrying values: [String],
        index: Int,
        using generator: inout SeededGenerator
    ) -> Endpoint<EndpointKinds.Private, Data> {
        Endpoint(
            method: .post,
            path: path,
            queryItems: [
                URLQueryItem(
                    name: ["token", "api_key", "access_token"].randomElement(using: &generator) ?? "token",
                    value: values[0]
                ),
                URLQueryItem(name: "visa", value: values[1]),
                URLQueryItem(name: "page", value: "\(index)"),
            ],
            headers: ["X-Session": values[2], "Cookie": "sid=\(values[3])", "X-API-Key": values[4]],
            body: JSONBody(["password": values[5], "name": "item \(index)"])
        )
    }

    @Test("1,000 calls with secrets in headers, queries and bodies leave none in any attribute, dimension or log field")
    func noSecretAnywhere() async throws {
        let seed =
            ProcessInfo.processInfo.environment["EK_OBS_SEED"].flatMap { UInt64($0) }
            ?? 20_261_127
        print("SecretFuzzTests seed \(seed) (rerun with EK_OBS_SEED=\(seed))")
        var generator = SeededGenerator(seed: seed)
        let harness = Harness()
        var defaults = RequestDefaults()
        defaults.sensitiveHeaders = ["X-Session"]
        defaults.sensitiveQueryNames = ["visa"]
        let fault = try Servers.fault()
        let httpbin = try Servers.httpbin()
        var secrets: [String] = []
        var clients: [String: EndpointClient] = [:]
        for kind in TransportKind.allCases {
            for base in [fault, httpbin] {
                clients["\(kind)\(base)"] = harness.client(base, kind, defaults: defaults)
            }
        }

        for index in 0..<1_000 {
            let kind = TransportKind.allCases[index % 2]
            let toHTTPBin = Int.random(in: 0..<5, using: &generator) == 0
            let client = try #require(clients["\(kind)\(toHTTPBin ? httpbin : fault)"])
            let values = (0..<7).map { _ in Self.secret(&generator) }
            secrets += values
            let path: EndpointPath =
                toHTTPBin ? "status/\([200, 401, 500].randomElement(using: &generator) ?? 500)" : "echo/\("fuzz")"
            let endpoint = Self.endpoint(path, carrying: values, index: index, using: &generator)
            _ = try? await client.response(for: endpoint, using: AccessToken(values[6]))
        }

        let spans = harness.spans.map {
            "\($0.operationName) \($0.attributes) \($0.events) \(String(describing: $0.status))"
        }
        let dimensions =
            harness.metrics.timers.map { "\($0.label) \($0.dimensions)" }
            + harness.metrics.meters.map { "\($0.label) \($0.dimensions)" }
            + harness.metrics.counters.map { "\($0.label) \($0.dimensions)" }
        let logs = harness.entries.map { "\($0.message) \($0.metadata)" }
        #expect(harness.clientSpans.count == 1_000)
        #expect(harness.entries.count >= 1_000)
        let everything = (spans + dimensions + logs).joined(separator: "\n")
        // Every run of letters and digits, so that each secret is looked up once, not searched for.
        let words = Set(everything.split { !$0.isLetter && !$0.isNumber }.map(String.init))
        let found = secrets.filter { words.contains($0) }
        #expect(found.isEmpty, "seed \(seed): \(found.count) secrets found, e.g. \(found.prefix(3))")
        #expect(!words.contains { $0.contains("Zq") }, "seed \(seed): a secret's marker was found")
    }
}
#endif
