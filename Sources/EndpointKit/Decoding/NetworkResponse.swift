import Foundation

/// The envelope many JSON APIs wrap every payload in: `{"result": …}`.
///
/// One generic type decodes the envelope of any model, so no model needs a wrapper of its own:
///
///     let items = try decoder.decode(NetworkResponse<[Item]>.self, from: data).result
///
/// The key is `result` unless the decoder's `userInfo` holds another under
/// `CodingUserInfoKey.networkResponseKey`; ``EndpointClient`` sets it from its ``ResponseEnvelope``.
/// A body without the key fails to decode at coding path `result`; it never decodes to an empty model.
public struct NetworkResponse<Wrapped> {
    /// The payload.
    public var result: Wrapped

    /// Wraps a payload.
    public init(result: Wrapped) { self.result = result }

    /// The key used when the decoder names none: `result`.
    public static var defaultKey: String { "result" }
}

extension NetworkResponse: Sendable where Wrapped: Sendable {}
extension NetworkResponse: Equatable where Wrapped: Equatable {}

extension NetworkResponse: Decodable where Wrapped: Decodable {
    /// Decodes the payload under the configured key.
    public init(from decoder: any Decoder) throws {
        let key = EnvelopeKey(decoder.userInfo[.networkResponseKey] as? String ?? Self.defaultKey)
        let container = try decoder.container(keyedBy: EnvelopeKey.self)
        result = try container.decode(Wrapped.self, forKey: key)
    }
}

extension NetworkResponse: Encodable where Wrapped: Encodable {
    /// Encodes the payload under the configured key.
    public func encode(to encoder: any Encoder) throws {
        let key = EnvelopeKey(encoder.userInfo[.networkResponseKey] as? String ?? Self.defaultKey)
        var container = encoder.container(keyedBy: EnvelopeKey.self)
        try container.encode(result, forKey: key)
    }
}

extension CodingUserInfoKey {
    /// The `userInfo` key under which a decoder names the key ``NetworkResponse`` reads its payload from.
    public static let networkResponseKey =
        CodingUserInfoKey(rawValue: "EndpointKit.networkResponseKey")
        ?? CodingUserInfoKey(rawValue: "networkResponseKey").unsafelyUnwrapped
}

/// A coding key made at run time.
struct EnvelopeKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
