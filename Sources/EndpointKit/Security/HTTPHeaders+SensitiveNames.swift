extension HTTPHeaders.Name {
    /// Whether values under this name are credentials, redacted in descriptions, logs and cURL output.
    ///
    /// The built-in list: `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`, `X-API-Key`, `API-Key`,
    /// `X-Auth-Token`, `X-CSRF-Token` and `X-XSRF-Token`. A client adds its own with
    /// ``RequestDefaults/sensitiveHeaders``.
    public var isSensitive: Bool { Self.sensitiveNames.contains(self) }

    /// The one built-in list of secret header names; the secret query names are ``Redaction``'s.
    private static let sensitiveNames: Set<Self> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key", "x-auth-token",
        "x-csrf-token", "x-xsrf-token",
    ]
}
