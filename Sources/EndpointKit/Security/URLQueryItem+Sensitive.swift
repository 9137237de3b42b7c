import Foundation

extension URLQueryItem {
    /// Whether this item's value is a credential by its name, redacted in descriptions, logs, cURL output and
    /// recordings: `token`, `access_token`, `api_key`, `password`, `signature`, `X-Amz-Signature`, … compared
    /// without case, `-` and `_`. A client adds its own names with ``RequestDefaults/sensitiveQueryNames``.
    package var isSensitive: Bool { Redaction.isSensitiveQueryName(name) }
}
