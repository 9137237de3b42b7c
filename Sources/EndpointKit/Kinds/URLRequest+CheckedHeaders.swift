import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLRequest {
    /// Sets a header for your ``EndpointKind`` after checking it as EndpointKit checks every header, so that a bad
    /// value fails the call instead of silently vanishing.
    ///
    ///     enum APIKeyed: EndpointKind {
    ///         static func prepare(_ request: inout URLRequest, with key: APIKey) throws {
    ///             try request.setCheckedValue(key.value, for: "X-API-Key")
    ///         }
    ///     }
    ///
    /// On Linux, `setValue(_:forHTTPHeaderField:)` silently drops a value that holds CR, LF or NUL, so a kind whose
    /// credential holds one would send the request without it. This method throws instead, and the call fails
    /// with ``EndpointError/Kind/invalidRequest`` before anything is sent.
    ///
    /// - Throws: ``HTTPHeaders/InvalidHeaderError`` for a name that is not a token, a value with a line break,
    ///   NUL, another control character or non-ASCII text, or a header only the transport may set.
    public mutating func setCheckedValue(_ value: String, for name: HTTPHeaders.Name) throws {
        if name.isManagedByTransport {
            throw HTTPHeaders.InvalidHeaderError(
                reason: "header \(name) is set by the transport and cannot be overridden"
            )
        }
        if let problem = HTTPHeaders.problem(name: name.rawValue, value: value) {
            throw HTTPHeaders.InvalidHeaderError(reason: problem)
        }
        setValue(value, forHTTPHeaderField: name.rawValue)
    }
}

extension HTTPHeaders {
    /// Thrown by `URLRequest.setCheckedValue(_:for:)` for a header that cannot be sent; the message never holds
    /// the value.
    public struct InvalidHeaderError: Error, CustomStringConvertible {
        /// Why the header cannot be sent.
        public let reason: String

        /// The reason.
        public var description: String { reason }
    }
}
