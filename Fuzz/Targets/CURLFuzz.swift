import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// cURL rendering: the printed command splits, as bash would split it, back into the same method, URL, headers
/// and body as the request EndpointKit sends, with nothing left for the shell to interpret; the bearer token is
/// printed as `<redacted>` and appears nowhere in the command.
enum CURLFuzz {
    static let methods: [HTTPMethod] = [.get, .post, .put, .patch, .delete, .head, "PURGE"]

    static func run(_ input: inout FuzzInput) {
        let method = methods[input.number(below: methods.count)]
        let segment = input.text()
        let queryValue = input.text()
        let headerName = input.text()
        let headerValue = input.text()
        let token = "FUZZSECRET" + input.text().filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
        let body = input.rest()

        var endpoint = Endpoint<EndpointKinds.Private, Data>(
            method: method,
            path: "items/\(segment)",
            queryItems: [URLQueryItem(name: "q", value: queryValue)],
            body: body.isEmpty || method == .get || method == .head ? nil : DataBody(Data(body))
        )
        endpoint.headers.add(headerValue, for: HTTPHeaders.Name(headerName))
        let client = FuzzClient.shared
        let command: String
        let request: URLRequest
        do {
            command = try client.curlCommand(for: endpoint, using: AccessToken(token)).command
            request = try endpoint.makeRequest(in: PathFuzz.environment, with: AccessToken(token))
        } catch {
            require(error.kind == .invalidRequest, "a request failed with \(error.kind)")
            return
        }
        require(!command.containsScalars("FUZZSECRET"), "the token was printed: \(command)")
        guard let words = shellWords(command) else {
            require(false, "bash would not read the command as plain words: \(command)")
            return
        }
        var rest = words[...]
        require(rest.popFirst() == "curl", "not a curl command: \(command)")
        if method == .head {
            require(rest.popFirst() == "--head", "HEAD without --head: \(command)")
        } else {
            require(rest.popFirst() == "-X" && rest.popFirst() == method.rawValue, "the method changed: \(command)")
        }
        require(rest.popFirst() == request.url?.absoluteString, "the URL changed: \(command)")

        var printedHeaders: [String: String] = [:]
        while rest.first == "-H" {
            rest.removeFirst()
            guard let field = rest.popFirst(), let colon = field.firstIndex(of: ":") else {
                require(false, "a header without a name: \(command)")
                return
            }
            let value = field[field.index(after: colon)...].dropFirst()
            printedHeaders[field[..<colon].lowercased()] = String(value)
        }
        var sentHeaders: [String: String] = [:]
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            sentHeaders[name.lowercased()] = name.lowercased() == "authorization" ? "<redacted>" : value
        }
        require(printedHeaders == sentHeaders, "headers \(printedHeaders) are not the request's \(sentHeaders)")

        let sentBody = request.httpBody.map(Array.init) ?? []
        if sentBody.isEmpty {
            require(rest.isEmpty, "arguments after the headers without a body: \(command)")
            return
        }
        require(rest.popFirst() == "--data-binary", "the body is missing: \(command)")
        guard let argument = rest.popFirst(), rest.isEmpty else {
            require(false, "the body argument is missing or followed by more: \(command)")
            return
        }
        let printedBody: [UInt8]?
        if argument.hasPrefix("@<(printf "), argument.hasSuffix(")") {
            printedBody = printfBytes(String(argument.dropFirst("@<(printf ".count).dropLast()))
        } else {
            require(!argument.hasPrefix("@"), "a text body starting with @ would be read as a file name: \(command)")
            printedBody = Array(argument.utf8)
        }
        require(printedBody == sentBody, "the printed body is not the body sent: \(command)")
    }
}
