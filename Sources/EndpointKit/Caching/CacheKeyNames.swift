import Foundation

/// The names a storage that writes keys outside the process gives them: keyed hashes (HMAC-SHA-256 under the
/// storage's secret, the first 160 bits as hexadecimal), so that neither a URL, whose query may hold a secret, nor
/// a partition is ever written as it is. ``DiskCacheStorage`` names its folders and files with them, and the
/// `Postgres` trait's cache storage its rows.
package struct CacheKeyNames: Sendable {
    private let authenticator: SHA256.Authenticator

    /// Names under `secret`.
    package init<Secret: Collection<UInt8>>(secret: Secret) {
        authenticator = SHA256.Authenticator(key: secret)
    }

    /// 32 bytes from the system's secure generator: a new storage's secret.
    package static func randomSecret() -> [UInt8] { SHA256.Authenticator.randomKey() }

    /// The name of everything stored for `url`, whatever its partition and method.
    package func name(forURL url: String) -> String { hash(url) }

    /// The name of `key` among the keys of its URL: its partition and method.
    package func name(forPartitionOf key: HTTPCache.Key) -> String { hash("\(key.partition) \(key.method.rawValue)") }

    private func hash(_ text: String) -> String {
        authenticator.code(for: text).prefix(20).hexadecimal
    }
}
