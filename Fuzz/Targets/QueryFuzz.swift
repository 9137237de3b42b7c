import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Query encoding: every name and value reaches the URL with only unreserved characters literal, the query
/// splits back into exactly the items given, each decoding to what was given; a secret value is never printed.
enum QueryFuzz {
    static func run(_ input: inout FuzzInput) {
        let name = input.text()
        let value = input.text()
        let secret = "FUZZSECRET" + input.text().filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
        let items = [
            URLQueryItem(name: name, value: value),
            URLQueryItem(name: "flag", value: nil),
            URLQueryItem(name: "access_token", value: secret),
        ]
        let endpoint = Endpoint<EndpointKinds.Public, Data>(path: "search", queryItems: items)
        let request: URLRequest
        do {
            request = try endpoint.makeRequest(in: PathFuzz.environment, with: ())
        } catch {
            require(error.kind == .invalidRequest, "query failed with \(error.kind)")
            require(name.isEmpty, "query name \(name.debugDescription) was refused: \(error.message)")
            return
        }
        let url = required(request.url, "a request without a URL")
        require(url.host == "api.example.com" && url.fragment == nil, "the URL changed: \(url)")
        let query = url.query(percentEncoded: true) ?? ""
        require(
            query.utf8.allSatisfy {
                isUnreserved($0) || $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "=")
            },
            "a reserved character is literal in the query: \(query)"
        )
        let pairs = query.split(separator: "&", omittingEmptySubsequences: false)
        require(pairs.count == items.count, "\(items.count) items became \(pairs.count): \(query)")
        for (pair, item) in zip(pairs, items) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            require(
                percentDecoded(parts[0]) == item.name,
                "name \(item.name.debugDescription) came back as \(parts[0])"
            )
            let decodedValue = parts.count > 1 ? percentDecoded(parts[1]) : nil
            require(decodedValue == item.value, "value \(item.value.debugDescription) came back as \(pair)")
        }

        let client = FuzzClient.shared
        let printed = [
            (try? client.curlCommand(for: endpoint).command) ?? "",
            "\(RequestSummary(request))",
        ]
        for output in printed {
            require(!output.containsScalars("FUZZSECRET"), "a secret query value was printed: \(output)")
        }
    }
}
