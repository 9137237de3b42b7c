// Runs the code generated from Generator/Tests/EndpointKitOpenAPITests/Fixtures/reserved-names.yaml, where every
// Swift keyword and reserved name is a model, member, parameter, enum value, operation and security scheme name:
// that it compiles is half the proof, and this says the names reach the wire as the description spells them. Built
// and run by scripts/openapi-compile-checks.sh; exits 1 on the first failed check, naming it.
import EndpointKit
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

func check(_ condition: Bool, _ what: String) {
    guard condition else {
        print("reserved names check FAILED: \(what)")
        exit(1)
    }
    print("reserved names check passed: \(what)")
}

/// A transport that records each request and answers with one JSON body.
actor Recorder: Transport {
    private(set) var sent: [TransportRequest] = []
    let body: String

    init(_ body: String) { self.body = body }

    func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse {
        sent.append(request)
        return TransportResponse(statusCode: 200, url: request.url, data: Data(body.utf8))
    }
}

let json = #"""
    {"self": "s", "Self": "S", "Type": "T", "init": "i", "default": "d", "_": "u", "1st": "one", "class": "c",
     "Name": "N", "name": "n", "a-b": "dash", "a_b": "underscore", "a b": "space", "hashValue": "h", "encode": "e"}
    """#
let decoded = try JSONDecoder().decode(SelfModel.self, from: Data(json.utf8))
check(decoded.`self` == "s" && decoded.self2 == "S" && decoded.`init` == "i", "self, Self and init are members")
check(decoded.`default` == "d" && decoded.value == "u" && decoded._1st == "one", "default, _ and 1st are members")
check(decoded.name == "N" && decoded.name2 == "n", "names that differ only in case are two members")
check(decoded.aB == "dash" && decoded.aB2 == "underscore" && decoded.aB3 == "space", "… or only in punctuation")
let made = SelfModel(self: "made", init: "x")
check(made.`self` == "made" && made.`init` == "x", "the initializer takes self and init as arguments")
let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(decoded)) as? [String: String] ?? [:]
check(encoded["self"] == "s" && encoded["a-b"] == "dash" && encoded["hashValue"] == "h", "members encode as named")

check(Default(rawValue: "self") == .`self` && Default(rawValue: "Self") == .self2, "enum values self and Self")
check(Default(rawValue: "") == .empty && Default(rawValue: "_") == .value, "enum values \"\" and _")
check(Default(rawValue: "unknown") == .unknown2 && Default.unknown2.rawValue == "unknown", "a listed value unknown")
check(Default(rawValue: "a-b") == .aB && Default(rawValue: "a_b") == .aB2, "enum values a-b and a_b are two cases")

let recorder = Recorder("{}")
guard let server = URL(string: "https://api.example.com") else { exit(1) }
let client = EndpointClient(environment: ServerEnvironment(baseURL: server), transport: recorder)
_ = try await client.response(for: .`self`(self: "a b/c", default: "d", init: "i", _1: "one", aB: "dash", aB2: "u"))
_ = try await client.response(for: .`init`(self: "x"))
_ = try await client.response(
    for: .both(),
    using: SecurityKinds.DefaultAndSelfScheme.Credentials(default: AccessToken("q"), self: AccessToken("h"))
)
let sent = await recorder.sent
let first = URLComponents(url: sent[0].url, resolvingAgainstBaseURL: false)
let items = Dictionary(uniqueKeysWithValues: (first?.queryItems ?? []).map { ($0.name, $0.value ?? "") })
check(sent[0].url.absoluteString.contains("/things0/a%20b%2Fc"), "a path parameter named self, escaped")
check(items["default"] == "d" && items["init"] == "i" && items["1"] == "one", "query names as the description has them")
check(items["a-b"] == "dash" && items["a_b"] == "u", "query names that differ only in punctuation")
check(sent[1].url.path.hasSuffix("/things1/x"), "an operation named init is a factory")
check(sent[2].headers["X-Self"] == "h" && sent[2].url.query?.contains("default=q") == true, "schemes self and default")
print("reserved names checks: all passed")
