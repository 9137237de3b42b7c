#if Postgres && AsyncHTTPClient
import EndpointKit
import EndpointKitPostgres
import Foundation
import Logging
import PostgresNIO
import Testing

/// The PostgreSQL server the root package's `scripts/postgres.sh` starts (`scripts/test.sh` runs these tests with
/// it), as a running pool, and a schema of the test's own that is dropped afterwards. A missing server fails the
/// test with how to start one.
struct TestDatabase: Sendable {
    let client: PostgresClient
    let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
    let logger = Logger(label: "endpointkit.tests")

    /// The pool's settings for `ENDPOINTKIT_POSTGRES_URL`.
    static func configuration() throws -> PostgresClient.Configuration {
        let value = try #require(
            ProcessInfo.processInfo.environment["ENDPOINTKIT_POSTGRES_URL"],
            """
            ENDPOINTKIT_POSTGRES_URL is not set: run these tests through scripts/test.sh, or start a server with \
            `scripts/postgres.sh start DIR` and source DIR/postgres.env
            """
        )
        return try #require(
            PostgresClient.Configuration(loopbackURL: value),
            "ENDPOINTKIT_POSTGRES_URL is not a postgres:// URL: \(value)"
        )
    }

    /// Runs `body` with a running pool on the test server, then drops the test's schema and stops the pool.
    static func with<T: Sendable>(_ body: @Sendable (TestDatabase) async throws -> T) async throws -> T {
        let database = TestDatabase(client: PostgresClient(configuration: try configuration()))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await database.client.run() }
            defer { group.cancelAll() }
            do {
                let result = try await body(database)
                try await database.dropSchema()
                return result
            } catch {
                try? await database.dropSchema()
                throw error
            }
        }
    }

    func dropSchema() async throws {
        try await client.query(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \(schema) CASCADE"), logger: logger)
    }

    /// The integers a query gives, one per row.
    func integers(_ sql: String) async throws -> [Int] {
        try await detailed(sql) {
            let rows = try await client.query(PostgresQuery(unsafeSQL: sql), logger: logger)
            var values: [Int] = []
            for try await value in rows.decode(Int.self) { values.append(value) }
            return values
        }
    }

    /// The texts a query gives, one per row (`NULL` as nil).
    func texts(_ sql: String) async throws -> [String?] {
        try await detailed(sql) {
            let rows = try await client.query(PostgresQuery(unsafeSQL: sql), logger: logger)
            var values: [String?] = []
            for try await value in rows.decode(String?.self) { values.append(value) }
            return values
        }
    }

    func execute(_ sql: String) async throws {
        try await detailed(sql) { _ = try await client.query(PostgresQuery(unsafeSQL: sql), logger: logger) }
    }

    /// A test's own statement failed: what PostgreSQL said, with the statement (postgres-nio's description of an
    /// error hides both).
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private func detailed<T>(_ sql: String, _ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch {
            throw Failure(description: "\(sql): \(String(reflecting: error))")
        }
    }
}
#endif
