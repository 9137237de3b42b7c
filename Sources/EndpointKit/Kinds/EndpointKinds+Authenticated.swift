import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension EndpointKinds {
    /// Endpoints whose bearer token comes from the client's ``BearerAuthentication`` middleware, which fetches,
    /// caches and refreshes it; calls take no `using:` argument.
    ///
    ///     let auth = BearerAuthentication(token: { try await keychain.accessToken() }, refresh: authServer.refresh)
    ///     let client = EndpointClient(environment: .production, middleware: [auth])
    ///     let profile = try await client.response(for: .myProfile)   // Kind == EndpointKinds.Authenticated
    ///
    /// A client without such a middleware refuses to send these endpoints rather than send them unauthenticated.
    public enum Authenticated: EndpointKind {
        /// Leaves the request as it is; the middleware adds `Authorization`.
        public static func prepare(_ request: inout URLRequest, with _: Void) {}

        /// Leaves the request as it is; the middleware adds `Authorization`.
        public static func prepare(_ request: inout TransportRequest, with _: Void) {}

        /// `true`: a middleware must add the credentials.
        public static var requiresAuthentication: Bool { true }
    }

    /// Endpoints that need HTTP Basic credentials, sent as `Authorization: Basic <base64>`.
    ///
    ///     try await client.response(for: .adminStats, using: BasicCredentials(user: "ops", password: secret))
    public enum Basic: EndpointKind {
        /// Sets `Authorization: Basic …`; a user name with `:` or a control character throws.
        public static func prepare(_ request: inout URLRequest, with credentials: BasicCredentials) throws {
            guard !credentials.user.contains(":"),
                !(credentials.user + credentials.password).unicodeScalars.contains(where: { $0.value < 0x20 })
            else {
                throw BasicCredentials.InvalidCredentialsError()
            }
            let encoded = Data("\(credentials.user):\(credentials.password)".utf8).base64EncodedString()
            request.setValue("Basic \(encoded)", forHTTPHeaderField: "Authorization")
        }
    }
}

/// A user name and password for ``EndpointKinds/Basic``; the password is never printed.
public struct BasicCredentials: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The user name; it cannot contain `:`.
    public var user: String
    /// The password.
    public var password: String

    /// Creates credentials.
    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// `BasicCredentials(user: <user>, password: <redacted>)`.
    public var description: String { "BasicCredentials(user: \(user), password: \(Redaction.placeholder))" }

    /// A mirror that shows only ``description``.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    struct InvalidCredentialsError: Error, CustomStringConvertible {
        var description: String {
            "a Basic user name cannot contain ':' and credentials cannot hold control characters"
        }
    }
}
