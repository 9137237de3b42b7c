import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension EndpointKinds {
    /// Endpoints that need an ``AccessToken``, sent as `Authorization: Bearer <token>`.
    ///
    ///     let results = try await client.response(for: .search(for: "tea"), using: AccessToken("s3cret"))
    ///
    /// Calling one without a token does not compile.
    public enum Private: EndpointKind {
        /// Sets `Authorization: Bearer <token>`; a token with characters a header cannot carry throws.
        public static func prepare(_ request: inout URLRequest, with token: AccessToken) throws {
            if let problem = HTTPHeaders.problem(name: "Authorization", value: token.value) {
                throw AccessToken.InvalidTokenError(reason: problem)
            }
            request.setValue("Bearer \(token.value)", forHTTPHeaderField: "Authorization")
        }

        /// Sets `Authorization: Bearer <token>` on the typed request; a token a header cannot carry throws.
        public static func prepare(_ request: inout TransportRequest, with token: AccessToken) throws {
            if let problem = HTTPHeaders.problem(name: "Authorization", value: token.value) {
                throw AccessToken.InvalidTokenError(reason: problem)
            }
            request.headers[.authorization] = "Bearer \(token.value)"
        }
    }
}
