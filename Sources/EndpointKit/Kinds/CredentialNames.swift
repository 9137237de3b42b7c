/// The header and query item names under which a kind places its credentials.
///
/// A kind that puts a key under a name of its own declares it through ``EndpointKind/credentialNames``, and
/// every call of that kind treats the name like `Authorization`: its value is redacted in descriptions, logs,
/// errors, cURL output, exchange records and traces, scrubbed from error bodies that echo it, and the header is
/// removed when a redirect leaves the request's origin.
///
///     enum ShopKey: EndpointKind {
///         static let credentialNames = CredentialNames(headers: ["X-Shop-Key"], queryItems: ["shop_key"])
///
///         static func prepare(_ request: inout URLRequest, with key: String) throws {
///             try request.setCheckedValue(key, for: "X-Shop-Key")
///         }
///     }
///
/// Names EndpointKit already treats as secret (`Authorization`, `Cookie`, `X-API-Key`, `api_key`, `token`, …)
/// need not be declared; a client can add more for every call with ``RequestDefaults/sensitiveHeaders`` and
/// ``RequestDefaults/sensitiveQueryNames``.
public struct CredentialNames: Sendable, Hashable {
    /// Header names whose values are credentials.
    public var headers: Set<HTTPHeaders.Name>
    /// Query item names whose values are credentials, compared as ``RequestDefaults/sensitiveQueryNames`` are.
    public var queryItems: Set<String>

    /// Names for a kind's credentials; none by default.
    public init(headers: Set<HTTPHeaders.Name> = [], queryItems: Set<String> = []) {
        self.headers = headers
        self.queryItems = queryItems
    }

    /// Whether no name is declared.
    public var isEmpty: Bool { headers.isEmpty && queryItems.isEmpty }

    /// These names and `other`'s: what a kind that applies several kinds' credentials declares.
    public func union(_ other: CredentialNames) -> CredentialNames {
        CredentialNames(headers: headers.union(other.headers), queryItems: queryItems.union(other.queryItems))
    }
}
