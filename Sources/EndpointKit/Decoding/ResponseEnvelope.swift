/// Whether response bodies come wrapped in an envelope such as `{"result": …}`, and under which key.
///
///     EndpointClient(environment: environment, envelope: .networkResponse)             // {"result": …}
///     EndpointClient(environment: environment, envelope: .networkResponse(key: "data")) // {"data": …}
///
/// A client's setting applies to every endpoint; an endpoint can override it, e.g. with ``plain``.
public struct ResponseEnvelope: Sendable, Hashable {
    /// The key that wraps the payload, or `nil` when bodies are not wrapped.
    public let key: String?

    private init(key: String?) { self.key = key }

    /// Bodies are the response value itself.
    public static let plain = ResponseEnvelope(key: nil)

    /// Bodies are ``NetworkResponse`` envelopes: `{"result": …}`.
    public static let networkResponse = ResponseEnvelope(key: NetworkResponse<Never>.defaultKey)

    /// Bodies are envelopes whose payload sits under `key`.
    public static func networkResponse(key: String) -> ResponseEnvelope { ResponseEnvelope(key: key) }
}
