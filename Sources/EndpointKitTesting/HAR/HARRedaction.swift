import EndpointKit
import Foundation

/// What a recording never holds: the secrets of a request and its response, replaced by `<redacted>` before an
/// entry is kept, by default and with no way to turn it off for the built-in names.
///
/// - Headers: `Authorization`, `Cookie`, `Set-Cookie`, API keys and every name that ``HTTPHeaders/Name/isSensitive``
///   lists, and the ``sensitiveHeaders`` you add (a client's ``RequestDefaults/sensitiveHeaders``).
/// - Query items: every name that `URLQueryItem.isSensitive` lists (`token`, `api_key`, `password`, …), and the
///   ``sensitiveQueryNames`` you add; in the URL and in `queryString` alike. A URL's user and password are dropped.
/// - Bodies: in JSON, the value of every member whose name is a secret query name (`password`, `access_token`,
///   `client_secret`, …) but `key` (an API key in a query, a cache or idempotency key in a body), at any depth; in a
///   form (`application/x-www-form-urlencoded`), the same by field name;
///   and in any text body, every value redacted from the request's headers and query, wherever it appears (a
///   server that echoes a token back).
public struct HARRedaction: Sendable {
    /// Header names redacted besides the built-in ones.
    public var sensitiveHeaders: Set<HTTPHeaders.Name>
    /// Query item and body field names redacted besides the built-in ones, compared without case, `-` and `_`.
    public var sensitiveQueryNames: Set<String>

    /// The default redaction, with the names a client adds.
    public init(sensitiveHeaders: Set<HTTPHeaders.Name> = [], sensitiveQueryNames: Set<String> = []) {
        self.sensitiveHeaders = sensitiveHeaders
        self.sensitiveQueryNames = Set(sensitiveQueryNames.map(Self.folded))
    }

    /// The redaction a client with `defaults` uses, plus `names` (the ``CredentialNames`` of the kinds its calls
    /// use: a recording transport sits below the client and does not see an endpoint's kind).
    public init(_ defaults: RequestDefaults, adding names: CredentialNames = CredentialNames()) {
        self.init(
            sensitiveHeaders: defaults.sensitiveHeaders.union(names.headers),
            sensitiveQueryNames: defaults.sensitiveQueryNames.union(names.queryItems)
        )
    }

    static let placeholder = "<redacted>"
    /// The placeholder as a query holds it.
    static let encodedPlaceholder = "%3Credacted%3E"

    private static func folded(_ name: String) -> String { name.lowercased().filter { $0 != "-" && $0 != "_" } }

    func isSensitive(header name: HTTPHeaders.Name) -> Bool { name.isSensitive || sensitiveHeaders.contains(name) }

    /// Whether a body field (a JSON member, a form field) holds a credential: the built-in query names and the
    /// names the client or a kind adds, except `key`, which names an API key in a query string (Google's APIs take
    /// one there) but as often a cache or idempotency key in a body. A credential sent elsewhere in the exchange is
    /// still replaced wherever it appears.
    func isSensitive(field name: String) -> Bool {
        let folded = Self.folded(name)
        return folded != "key"
            && (URLQueryItem(name: name, value: nil).isSensitive || sensitiveQueryNames.contains(folded))
    }

    /// Whether a query item's value is a credential: the built-in names (`key` among them) and the added ones.
    func isSensitive(queryItem name: String) -> Bool {
        URLQueryItem(name: name, value: nil).isSensitive || sensitiveQueryNames.contains(Self.folded(name))
    }

    /// `headers` with secret values replaced, and the values that were replaced (with a scheme's token alone).
    func redacted(_ headers: HTTPHeaders) -> (fields: [HARArchive.NameValue], secrets: Set<String>) {
        var secrets = Set<String>()
        let fields = headers.map { field -> HARArchive.NameValue in
            guard isSensitive(header: field.name) else { return .init(name: field.name.rawValue, value: field.value) }
            secrets.insert(field.value)
            if let space = field.value.firstIndex(of: " ") {
                secrets.insert(String(field.value[field.value.index(after: space)...]))
            }
            for cookie in field.value.split(separator: ";") {
                if let equals = cookie.firstIndex(of: "=") {
                    secrets.insert(String(cookie[cookie.index(after: equals)...]))
                }
            }
            return .init(name: field.name.rawValue, value: Self.placeholder)
        }
        return (fields, secrets.filter { $0.count >= 4 })
    }

    /// `url` without user info and with secret query values replaced; its query items, redacted; the values
    /// replaced.
    func redacted(_ url: URL) -> (url: String, query: [HARArchive.NameValue], secrets: Set<String>) {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return (url.absoluteString, [], [])
        }
        var secrets = Set<String>()
        if let password = components.password { secrets.insert(password) }
        components.user = nil
        components.password = nil
        let items = (components.percentEncodedQueryItems ?? []).map { item -> URLQueryItem in
            let name = item.name.removingPercentEncoding ?? item.name
            guard isSensitive(queryItem: name), let value = item.value else { return item }
            secrets.insert(value.removingPercentEncoding ?? value)
            secrets.insert(value)
            return URLQueryItem(name: item.name, value: Self.encodedPlaceholder)
        }
        // Written as text: setting query items with characters a query cannot hold stops the process.
        if components.percentEncodedQuery != nil {
            components.percentEncodedQuery = items.map { item in item.value.map { "\(item.name)=\($0)" } ?? item.name }
                .joined(separator: "&")
        }
        let query = items.map {
            HARArchive.NameValue(
                name: $0.name.removingPercentEncoding ?? $0.name,
                value: ($0.value ?? "").removingPercentEncoding ?? ($0.value ?? "")
            )
        }
        return (components.string ?? url.absoluteString, query, secrets.filter { $0.count >= 4 })
    }

    /// A body's bytes with secrets replaced: by field name in JSON and forms, then every known secret as text; and
    /// the field values it replaced, which a response that echoes the body must not show either.
    func redacted(body: Data, contentType: String?, secrets: Set<String>) -> (Data, Set<String>) {
        var body = body
        var found = Set<String>()
        let type = contentType?.lowercased() ?? ""
        if type.contains("json") || body.first == UInt8(ascii: "{") || body.first == UInt8(ascii: "[") {
            if let redacted = redactedJSON(body, found: &found) { body = redacted }
        } else if type.contains("x-www-form-urlencoded") || Self.looksLikeForm(body) {
            body = redactedForm(body, found: &found)
        }
        let all = secrets.union(found.filter { $0.count >= 4 })
        guard !all.isEmpty, var text = String(data: body, encoding: .utf8) else { return (body, found) }
        for secret in all.sorted(by: { $0.count > $1.count }) where text.contains(secret) {
            text = text.replacingOccurrences(of: secret, with: Self.placeholder)
        }
        return (Data(text.utf8), found)
    }

    /// Whether `body` reads as `name=value&…` text.
    private static func looksLikeForm(_ body: Data) -> Bool {
        guard body.count < 1 << 20, let text = String(data: body, encoding: .utf8), text.contains("=") else {
            return false
        }
        return text.allSatisfy { $0.isLetter || $0.isNumber || "=&%+-_.*~".contains($0) }
    }

    /// The JSON with secret members replaced, or `nil` when it is not JSON or holds none (its bytes are kept).
    private func redactedJSON(_ body: Data, found: inout Set<String>) -> Data? {
        guard let value = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) else {
            return nil
        }
        var changed = false
        let redacted = redactedJSONValue(value, changed: &changed, found: &found)
        guard changed else { return nil }
        return try? JSONSerialization.data(withJSONObject: redacted, options: [.fragmentsAllowed, .sortedKeys])
    }

    private func redactedJSONValue(_ value: Any, changed: inout Bool, found: inout Set<String>) -> Any {
        if let object = value as? [String: Any] {
            var result = [String: Any]()
            for (key, member) in object {
                if isSensitive(field: key), !(member is [String: Any]), !(member is [Any]), !(member is NSNull) {
                    result[key] = Self.placeholder
                    found.insert("\(member)")
                    changed = true
                } else {
                    result[key] = redactedJSONValue(member, changed: &changed, found: &found)
                }
            }
            return result
        }
        if let array = value as? [Any] { return array.map { redactedJSONValue($0, changed: &changed, found: &found) } }
        return value
    }

    private func redactedForm(_ body: Data, found: inout Set<String>) -> Data {
        guard let text = String(data: body, encoding: .utf8) else { return body }
        let fields = text.split(separator: "&", omittingEmptySubsequences: false).map { field -> String in
            let parts = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name =
                String(parts[0]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(parts[0])
            guard parts.count == 2, isSensitive(field: name) else { return String(field) }
            found.insert(String(parts[1]))
            found.insert(String(parts[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "")
            return "\(parts[0])=\(Self.placeholder)"
        }
        return Data(fields.joined(separator: "&").utf8)
    }
}
