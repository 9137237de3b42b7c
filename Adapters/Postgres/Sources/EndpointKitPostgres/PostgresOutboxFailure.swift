#if Postgres
import EndpointKit
import PostgresNIO

/// How a failure of PostgreSQL becomes an ``EndpointError``: the server's own message and SQL state, or the
/// client's error code, and never the statement's bound values (a write's body).
enum PostgresOutboxFailure {
    /// `context`, then why, as an error of `kind`; an ``EndpointError`` thrown inside a transaction comes back as
    /// it was.
    static func error(_ context: String, _ error: any Error, kind: EndpointError.Kind = .outboxStorageFailed)
        -> EndpointError
    {
        if let error = error as? EndpointError { return error }
        if let transaction = error as? PostgresTransactionError {
            if let inner = transaction.closureError ?? transaction.beginError ?? transaction.commitError {
                return Self.error(context, inner, kind: kind)
            }
        }
        return EndpointError(kind, "\(context): \(reason(error))", underlyingError: error)
    }

    /// Why PostgreSQL failed, in words that hold no bound value.
    static func reason(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return String(describing: type(of: error)) }
        if let message = error.serverInfo?[.message] {
            let state = error.serverInfo?[.sqlState] ?? "?"
            // An undefined table or schema: the library's tables were never made here.
            let hint =
                ["42P01", "3F000"].contains(state) ? "; call prepare() (run() does) before anything else" : ""
            return "PostgreSQL said \"\(message)\" (SQL state \(state))\(hint)"
        }
        return "PostgreSQL could not be used (\(error.code))"
    }
}
#endif
