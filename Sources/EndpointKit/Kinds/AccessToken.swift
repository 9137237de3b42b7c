/// A bearer token for ``EndpointKinds/Private`` endpoints.
///
/// The value is never printed: `description`, `debugDescription`, string interpolation and `dump` all show
/// `AccessToken(<redacted>)`. Read ``value`` only where the token is sent.
public struct AccessToken: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The token itself.
    public let value: String

    /// Wraps a token string.
    public init(_ value: String) { self.value = value }

    /// Whether two tokens are the same bytes. Not Swift's `String` equality, which holds for text that is only
    /// canonically equivalent ("é" and "e\u{301}") though it would be sent as other bytes.
    public static func == (lhs: AccessToken, rhs: AccessToken) -> Bool {
        lhs.value.utf8.elementsEqual(rhs.value.utf8)
    }

    /// Hashes the token's bytes, as ``==(_:_:)`` compares them.
    public func hash(into hasher: inout Hasher) {
        for byte in value.utf8 { hasher.combine(byte) }
    }

    /// `AccessToken(<redacted>)`.
    public var description: String { "AccessToken(\(Redaction.placeholder))" }

    /// `AccessToken(<redacted>)`.
    public var debugDescription: String { description }

    /// A mirror with no children, so `dump` and debuggers show only the redacted description.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    /// Thrown by ``EndpointKinds/Private`` when a token cannot be carried in a header.
    struct InvalidTokenError: Error, CustomStringConvertible {
        var reason: String
        var description: String { "the access token cannot be sent: \(reason)" }
    }
}
