#if OpenAPI
import Foundation
import Yams

/// What a description does not say and the generator needs, kept in a YAML file beside it so that it survives
/// regeneration.
///
///     kinds:
///       default: public          # operations of a description that declares no security
///       bearerTokens: middleware # bearer and OAuth schemes become EndpointKinds.Authenticated
///       operations:
///         createPets: basic      # public, bearer, basic, authenticated, or a security scheme's name
public struct Overlay: Decodable, Equatable, Sendable {
    /// Kinds for operations: a default, how bearer tokens are given, and kinds by `operationId`.
    public struct Kinds: Decodable, Equatable, Sendable {
        /// The kind of every operation when the description declares no security at all.
        public var `default`: String?
        /// `middleware`: a bearer or OAuth 2.0 scheme becomes `EndpointKinds.Authenticated`, whose token a
        /// middleware such as `BearerAuthentication` adds, instead of `EndpointKinds.Private` and `using:`.
        public var bearerTokens: String?
        /// Kinds by `operationId`, over what the description says.
        public var operations: [String: String]?
    }

    /// Kinds for operations, over what the description says.
    public var kinds: Kinds?

    /// An overlay with `kinds`; an empty one changes nothing.
    public init(kinds: Kinds? = nil) { self.kinds = kinds }

    /// Reads an overlay from YAML (or JSON) text.
    public init(yaml: String) throws {
        self = try YAMLDecoder().decode(Overlay.self, from: yaml)
    }
}
#endif
