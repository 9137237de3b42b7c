import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What EndpointKit hides from descriptions, logs and error messages.
enum Redaction {
    /// What a hidden value is replaced with.
    static let placeholder = "<redacted>"

    /// Query item names whose values are credentials (compared without case, `-` and `_`).
    private static let sensitiveQueryNames: Set<String> = [
        "token", "accesstoken", "refreshtoken", "idtoken", "apikey", "key", "secret", "clientsecret", "password",
        "passwd", "signature", "sig", "auth", "authorization", "code", "session", "sessionid",
    ]

    /// Whether the value of the query item `name` must be hidden.
    static func isSensitiveQueryName(_ name: String) -> Bool {
        let folded = name.lowercased().filter { $0 != "-" && $0 != "_" }
        return sensitiveQueryNames.contains(folded)
    }

    /// The headers of `request`, sorted by name, with credential values and those named in `alsoSensitive`
    /// replaced by ``placeholder`` unless `revealing` is `true`.
    static func headers(
        of request: URLRequest,
        alsoSensitive: Set<HTTPHeaders.Name>,
        revealing: Bool = false
    ) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for (name, value) in (request.allHTTPHeaderFields ?? [:]).sorted(by: {
            $0.key.lowercased() < $1.key.lowercased()
        }) {
            let headerName = HTTPHeaders.Name(name)
            let isSecret = headerName.isSensitive || alsoSensitive.contains(headerName)
            headers.add(isSecret && !revealing ? placeholder : value, for: headerName)
        }
        return headers
    }

    /// `url` as a string with its password and sensitive query values replaced by ``placeholder``.
    static func redactedString(for url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return url.absoluteString
        }
        if components.percentEncodedPassword != nil { components.percentEncodedPassword = "redacted" }
        if let query = components.percentEncodedQuery {
            components.percentEncodedQuery = redactedQuery(query)
        }
        return components.string ?? url.absoluteString
    }

    /// A percent-encoded query with sensitive values replaced by `REDACTED`, which, unlike ``placeholder``, needs
    /// no percent-encoding and so keeps the URL valid.
    static func redactedQuery(_ query: String) -> String {
        query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let name = String(pair[..<equals])
            let decodedName = name.removingPercentEncoding ?? name
            return isSensitiveQueryName(decodedName) ? name + "=" + "REDACTED" : String(pair)
        }.joined(separator: "&")
    }
}
