#if OpenAPI
import Foundation
import Yams

/// What a description does not say and the generator needs, kept in a YAML file beside it so that it survives
/// regeneration.
///
///     kinds:
///       default: public          # operations of a description that declares no security (else: bearer?)
///       bearerTokens: middleware # bearer and OAuth schemes become EndpointKinds.Authenticated
///       every: bearer?           # every operation not named below, over what the description says
///       operations:
///         createPets: basic      # public, bearer, basic, authenticated, or a security scheme's name
///         listPets: bearer?      # `?`: the credential is optional (the public kind is generated too)
///     operations:
///       getThing:                # see OperationSettings
///         name: thing
///         cache: { maxAge: 60 }
///     models:
///       Region: { id: slug }     # see ModelSettings
public struct Overlay: Decodable, Equatable, Sendable {
    /// Kinds for operations: a default, how bearer tokens are given, and kinds by `operationId`.
    ///
    /// A kind is `public`, `bearer`, `basic`, `authenticated`, or a security scheme's name; followed by `?`
    /// (`bearer?`), its credential is optional: the operation is generated with the public kind as well, so it is
    /// callable with and without one. Each `operationId` named must be one of the description's: a name that
    /// matches none is an error.
    public struct Kinds: Decodable, Equatable, Sendable {
        /// The kind of every operation when the description declares no security at all. Without it, such
        /// operations are `bearer?`: public, and callable with a bearer token too.
        public var `default`: String?
        /// The kind of every operation the overlay does not name under ``operations``, over what the description
        /// says.
        public var every: String?
        /// `middleware`: a bearer or OAuth 2.0 scheme becomes `EndpointKinds.Authenticated`, whose token a
        /// middleware such as `BearerAuthentication` adds, instead of `EndpointKinds.Private` and `using:`.
        public var bearerTokens: String?
        /// Kinds by `operationId`, over what the description says.
        public var operations: [String: String]?

        /// Reads the kinds; a key it does not know is an error.
        public init(from decoder: any Decoder) throws {
            try Overlay.refuseUnknownKeys(in: decoder, known: CodingKeys.self)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            `default` = try container.decodeIfPresent(String.self, forKey: .default)
            bearerTokens = try container.decodeIfPresent(String.self, forKey: .bearerTokens)
            if let bearerTokens, bearerTokens != "middleware" {
                throw DecodingError.dataCorruptedError(
                    forKey: .bearerTokens,
                    in: container,
                    debugDescription: "bearerTokens is \"middleware\" or absent, not \"\(bearerTokens)\""
                )
            }
            every = try container.decodeIfPresent(String.self, forKey: .every)
            operations = try container.decodeIfPresent([String: String].self, forKey: .operations)
        }

        private enum CodingKeys: String, CodingKey, CaseIterable {
            case `default`, bearerTokens, every, operations
        }
    }

    /// Kinds for operations, over what the description says.
    public var kinds: Kinds?

    /// Names and options by operation (its `operationId`, or its method and path).
    public var operations: [String: OperationSettings]?

    /// Settings by generated model name.
    public var models: [String: ModelSettings]?

    /// An overlay with `kinds`; an empty one changes nothing.
    public init(kinds: Kinds? = nil) { self.kinds = kinds }

    /// Reads an overlay; a key it does not know is an error.
    public init(from decoder: any Decoder) throws {
        try Overlay.refuseUnknownKeys(in: decoder, known: CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kinds = try container.decodeIfPresent(Kinds.self, forKey: .kinds)
        operations = try container.decodeIfPresent([String: OperationSettings].self, forKey: .operations)
        models = try container.decodeIfPresent([String: ModelSettings].self, forKey: .models)
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case kinds, operations, models
    }

    /// Reads an overlay from YAML (or JSON) text; a setting it does not know is an error.
    public init(yaml: String) throws {
        self = try YAMLDecoder().decode(Overlay.self, from: yaml)
    }
}
#endif
