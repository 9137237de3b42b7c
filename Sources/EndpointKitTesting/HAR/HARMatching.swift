import EndpointKit
import Foundation

/// How ``HARTransport`` finds the recorded answer to a request: by method, URL and body by default, each compared
/// after redaction (so that a recorded `<redacted>` token matches whatever token the replaying client sends).
///
///     var matching = HARMatching()
///     matching.ignoredQueryItems = ["timestamp", "nonce"]   // values that differ on every run
///     matching.matchedHeaders = ["Accept"]                  // a header that selects the representation
///
/// Query items match in any order, and JSON bodies whatever the order of their members. Headers are not compared unless named in ``matchedHeaders``. Identical
/// requests are answered by their recorded entries in the order they were recorded.
public struct HARMatching: Sendable {
    /// Query item names left out of the comparison.
    public var ignoredQueryItems: Set<String>
    /// Headers whose values must match too; none by default.
    public var matchedHeaders: Set<HTTPHeaders.Name>
    /// Whether request bodies must match; `true` by default.
    public var matchesBody: Bool

    /// Matching by method, URL and body, with the given exceptions.
    public init(
        ignoredQueryItems: Set<String> = [],
        matchedHeaders: Set<HTTPHeaders.Name> = [],
        matchesBody: Bool = true
    ) {
        self.ignoredQueryItems = ignoredQueryItems
        self.matchedHeaders = matchedHeaders
        self.matchesBody = matchesBody
    }

    /// What two requests must share to match.
    struct Key: Hashable {
        var method: String
        var address: String
        var query: [String]
        var headers: [String]
        var body: String?
    }

    func key(of request: HARArchive.Request) -> Key {
        let address = request.url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.url
        let query = request.queryString.filter { !ignoredQueryItems.contains($0.name) }.map { "\($0.name)=\($0.value)" }
        let headers = matchedHeaders.map(\.rawValue).sorted().map { name in
            let values = request.headers.filter { HTTPHeaders.Name($0.name) == HTTPHeaders.Name(name) }.map(\.value)
            return "\(name.lowercased()): \(values.joined(separator: ", "))"
        }
        return Key(
            method: request.method,
            address: address,
            query: query.sorted(),
            headers: headers,
            body: matchesBody ? Self.canonical(request.postData?.text ?? "") : nil
        )
    }

    /// A JSON body with its members sorted (encoders need not keep an order: Foundation's on Linux does not, run to
    /// run), so that the same value matches whatever order it was written in; any other body as it is.
    static func canonical(_ body: String) -> String {
        guard body.first == "{" || body.first == "[",
            let value = try? JSONSerialization.jsonObject(with: Data(body.utf8), options: [.fragmentsAllowed]),
            let sorted = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
        else { return body }
        return String(decoding: sorted, as: UTF8.self)
    }

    /// How alike two requests are, for naming the nearest recorded entries of a request that matches none.
    static func likeness(_ lhs: Key, _ rhs: Key) -> Int {
        var score = 0
        if lhs.method == rhs.method { score += 4 }
        if lhs.address == rhs.address { score += 8 }
        score += Set(lhs.query).intersection(rhs.query).count
        if lhs.headers == rhs.headers { score += 1 }
        if lhs.body == rhs.body { score += 2 }
        return score
    }
}
