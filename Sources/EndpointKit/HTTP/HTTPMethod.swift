/// An HTTP request method.
///
/// Use the constants (``get``, ``post``, …) at call sites; a custom method is a token such as `PURGE`:
///
///     let create = Endpoint<EndpointKinds.Private, Item>(method: .post, path: "items", body: JSONBody(newItem))
///     let purge = Endpoint<EndpointKinds.Private, EmptyResponse>(method: HTTPMethod("PURGE"), path: "cache")
///
/// A method that is not an RFC 9110 token (for example one holding a space or a line break) fails to build
/// with ``EndpointError/Kind/invalidRequest``; Linux URLSession would otherwise write it into the request line.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    /// The method as sent, e.g. `GET`.
    public let rawValue: String

    /// Creates a method from its name, which is sent exactly as given (methods are case-sensitive).
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Creates a method from its name, which is sent exactly as given (methods are case-sensitive).
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Creates a method from a string literal such as `"PURGE"`.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// The method name.
    public var description: String { rawValue }

    /// `GET`: reads a resource. The default for ``Endpoint``.
    public static let get = HTTPMethod("GET")
    /// `POST`: creates a resource or submits data.
    public static let post = HTTPMethod("POST")
    /// `PUT`: replaces a resource.
    public static let put = HTTPMethod("PUT")
    /// `PATCH`: changes part of a resource.
    public static let patch = HTTPMethod("PATCH")
    /// `DELETE`: removes a resource.
    public static let delete = HTTPMethod("DELETE")
    /// `HEAD`: like `GET`, without a response body.
    public static let head = HTTPMethod("HEAD")
    /// `OPTIONS`: asks which methods a resource supports.
    public static let options = HTTPMethod("OPTIONS")

    /// Whether repeating the request has the same effect as sending it once (RFC 9110 §9.2.2).
    public var isIdempotent: Bool {
        switch rawValue {
        case "GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE": return true
        default: return false
        }
    }

    /// Whether the method is an RFC 9110 token and so can be written into a request line.
    var isValidToken: Bool { HTTPToken.isValid(rawValue) }
}
