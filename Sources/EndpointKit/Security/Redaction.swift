import Foundation

/// What EndpointKit hides from descriptions, logs, cURL output and error messages, and strips from a redirect
/// to another origin: one list, used everywhere.
enum Redaction {
    /// What a hidden value is replaced with.
    static let placeholder = "<redacted>"

    /// Query item names whose values are credentials, compared without case, `-` and `_`: `access_token`,
    /// `X-Amz-Signature` and `apiKey` all match.
    static let sensitiveQueryNames: Set<String> = [
        "token", "accesstoken", "refreshtoken", "idtoken", "authtoken", "privatetoken", "sessiontoken", "jwt",
        "apikey", "key", "secret", "clientsecret", "password", "passwd", "signature", "sig", "auth", "authorization",
        "code", "session", "sessionid", "xamzsignature", "xamzcredential", "xamzsecuritytoken", "awsaccesskeyid",
        "xgoogsignature", "xgoogcredential",
    ]

    /// `name` folded for comparison: lowercased, without `-` and `_`.
    static func folded(_ name: String) -> String {
        name.lowercased().filter { $0 != "-" && $0 != "_" }
    }

    /// Whether the value of the query item `name` is one of the built-in credentials.
    static func isSensitiveQueryName(_ name: String) -> Bool {
        sensitiveQueryNames.contains(folded(name))
    }

    /// `items` as `name=value` text with the values of secret names redacted.
    static func redacted(_ items: [URLQueryItem]) -> [String] {
        items.map { item in
            let value = isSensitiveQueryName(item.name) ? placeholder : (item.value ?? "")
            return item.value == nil ? item.name : "\(item.name)=\(value)"
        }
    }

    /// `url` as a string with its password and sensitive query values replaced, by the built-in list only.
    static func redactedString(for url: URL) -> String {
        Redactor().redactedString(for: url)
    }
}

/// One client's redaction: the built-in secret headers and query names plus the ones its
/// ``RequestDefaults`` adds.
struct Redactor: Sendable {
    /// Header names to hide besides those ``HTTPHeaders/Name/isSensitive`` already covers.
    var extraHeaders: Set<HTTPHeaders.Name> = []
    /// Query names to hide besides the built-in ones, already folded.
    var extraQueryNames: Set<String> = []

    init() {}

    init(_ defaults: RequestDefaults) {
        extraHeaders = defaults.sensitiveHeaders
        extraQueryNames = Set(defaults.sensitiveQueryNames.map(Redaction.folded))
    }

    /// This redactor, also hiding `names`.
    func adding(_ names: CredentialNames) -> Redactor {
        var redactor = self
        redactor.extraHeaders.formUnion(names.headers)
        redactor.extraQueryNames.formUnion(names.queryItems.map(Redaction.folded))
        return redactor
    }

    func isSensitive(_ name: HTTPHeaders.Name) -> Bool {
        name.isSensitive || extraHeaders.contains(name)
    }

    /// Removes every credential header from `headers`: what a request keeps when it leaves its origin (a
    /// redirect there, or an endpoint's absolute URL at another origin).
    func removeCredentials(from headers: inout HTTPHeaders) {
        for field in headers where isSensitive(field.name) { headers.remove(field.name) }
    }

    func isSensitiveQueryName(_ name: String) -> Bool {
        let folded = Redaction.folded(name)
        return Redaction.sensitiveQueryNames.contains(folded) || extraQueryNames.contains(folded)
    }

    /// `headers` with secret values replaced by the placeholder unless `revealing` is `true`, sorted by name.
    func redacted(_ headers: HTTPHeaders, revealing: Bool = false, sorted: Bool = true) -> HTTPHeaders {
        let fields =
            sorted ? headers.sorted { $0.name.rawValue.lowercased() < $1.name.rawValue.lowercased() } : Array(headers)
        var result = HTTPHeaders()
        for field in fields {
            result.add(isSensitive(field.name) && !revealing ? Redaction.placeholder : field.value, for: field.name)
        }
        return result
    }

    /// `url` as a string with its user info, fragment and sensitive query values replaced.
    func redactedString(for url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return "<an unreadable URL>"
        }
        // `REDACTED`, as OpenTelemetry's HTTP conventions write a URL's hidden parts.
        if components.percentEncodedUser != nil { components.percentEncodedUser = "REDACTED" }
        if components.percentEncodedPassword != nil { components.percentEncodedPassword = "REDACTED" }
        if components.percentEncodedFragment != nil { components.percentEncodedFragment = "REDACTED" }
        if let query = components.percentEncodedQuery {
            components.percentEncodedQuery = redactedQuery(query)
        }
        return components.string ?? "<an unreadable URL>"
    }

    /// A percent-encoded query with sensitive values replaced by `REDACTED`, which, unlike the placeholder,
    /// needs no percent-encoding and so keeps the URL valid.
    func redactedQuery(_ query: String) -> String {
        query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let name = String(pair[..<equals])
            let decodedName = name.removingPercentEncoding ?? name
            return isSensitiveQueryName(decodedName) ? name + "=" + "REDACTED" : String(pair)
        }.joined(separator: "&")
    }

    /// The credential values `request` carries, as a server might echo them.
    func secrets(of request: TransportRequest) -> Set<String> {
        var secrets = Set<String>()
        for field in request.headers where isSensitive(field.name) {
            secrets.insert(field.value)
            if let space = field.value.firstIndex(of: " ") {
                secrets.insert(
                    String(field.value[field.value.index(after: space)...]).trimmingCharacters(in: .whitespaces)
                )
            }
        }
        if let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false) {
            if let password = components.password { secrets.insert(password) }
            for item in components.queryItems ?? [] where isSensitiveQueryName(item.name) {
                if let value = item.value { secrets.insert(value) }
            }
        }
        return secrets.filter { !$0.isEmpty }
    }

    /// The method and redacted URL of `request`.
    func summary(of request: TransportRequest) -> RequestSummary {
        RequestSummary(method: request.method, url: request.url, redactor: self)
    }
}
