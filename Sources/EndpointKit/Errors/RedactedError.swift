/// An error that held a credential in its text, as ``EndpointError/underlyingError`` keeps it: its type's name and
/// its printed form with the credential replaced.
public struct RedactedError: Error, Sendable, CustomStringConvertible {
    /// The name of the original error's type.
    public var typeName: String
    /// The original error as it printed, credentials replaced by `<redacted>`.
    public var description: String
}
