#if Postgres
import Foundation
import PostgresNIO

extension PostgresClient.Configuration {
    /// The settings for a `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE` URL without TLS, as
    /// `scripts/postgres.sh` writes `ENDPOINTKIT_POSTGRES_URL` for loopback servers; `nil` for another string.
    package init?(loopbackURL value: String) {
        guard let url = URLComponents(string: value), url.scheme == "postgres" || url.scheme == "postgresql" else {
            return nil
        }
        self.init(
            host: url.host ?? "127.0.0.1",
            port: url.port ?? 5432,
            username: url.user ?? "endpointkit",
            password: url.password,
            database: String(url.path.dropFirst()),
            tls: .disable
        )
    }
}
#endif
