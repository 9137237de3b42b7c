import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What an endpoint needs before it can be sent, checked by the compiler.
///
/// A kind names the ``RequestData`` a call must supply and applies it to the `URLRequest`. Because
/// ``Endpoint`` carries its kind as a type, calling an endpoint without its data does not compile:
///
///     enum APIKeyed: EndpointKind {
///         static func prepare(_ request: inout URLRequest, with key: APIKey) throws {
///             try request.setCheckedValue(key.value, for: "X-API-Key")
///         }
///     }
///
/// Set headers with `URLRequest.setCheckedValue(_:for:)`: on Linux, `setValue(_:forHTTPHeaderField:)` silently
/// drops a value holding a line break, and the request would go out without it.
///
/// Kinds whose `RequestData` is `Void` are sent without a `using:` argument.
public protocol EndpointKind: Sendable {
    /// What a caller must supply to send an endpoint of this kind, e.g. ``AccessToken``.
    associatedtype RequestData: Sendable

    /// Applies `data` to `request`, which already holds the endpoint's URL, method, headers and body.
    ///
    /// Headers set here are checked like any other before the request is sent. Throw to refuse the request;
    /// the client reports a thrown error as ``EndpointError/Kind/invalidRequest``.
    static func prepare(_ request: inout URLRequest, with data: RequestData) throws

    /// Applies `data` to the typed request the client sends.
    ///
    /// The default hands a `URLRequest` to ``prepare(_:with:)-(URLRequest,_)`` and takes back what it changed
    /// (method, URL, headers, an in-memory body); implement this one too to skip that conversion. The kinds
    /// EndpointKit ships do.
    static func prepare(_ request: inout TransportRequest, with data: RequestData) throws

    /// Whether a middleware such as ``BearerAuthentication`` must add credentials before sending; `false`
    /// unless a kind says otherwise. A client whose chain adds no `Authorization` header to such a request
    /// refuses to send it.
    static var requiresAuthentication: Bool { get }

    /// The header and query item names under which ``prepare(_:with:)-(URLRequest,_)`` places credentials, when
    /// EndpointKit does not already treat them as secret: every call of this kind redacts them and drops the
    /// header on a redirect to another origin. None unless a kind says otherwise.
    static var credentialNames: CredentialNames { get }
}

extension EndpointKind {
    /// `false`: the kind's own request data is all the request needs.
    public static var requiresAuthentication: Bool { false }

    /// None: the kind places no credential under a name of its own.
    public static var credentialNames: CredentialNames { CredentialNames() }

    /// Prepares `request` through a `URLRequest` and ``prepare(_:with:)-(URLRequest,_)``.
    public static func prepare(_ request: inout TransportRequest, with data: RequestData) throws {
        try prepareThroughURLRequest(&request, with: data)
    }
}

/// The kinds EndpointKit ships; write your own by conforming a caseless enum to ``EndpointKind``.
public enum EndpointKinds {}
