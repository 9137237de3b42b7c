import Foundation

/// A value that can be sent as a query item or a form field, with one documented encoding:
///
/// | Swift value | Sent as |
/// | --- | --- |
/// | `String`, `Substring` | the text |
/// | integers | decimal digits, e.g. `-42` |
/// | `Double`, `Float` | Swift's shortest round-tripping form, e.g. `0.1`, `1e+20` |
/// | `Bool` | `true` or `false` |
/// | `UUID` | its uppercase string |
/// | an array | the name repeated once per element: `tags=a&tags=b` |
/// | an optional | its wrapped value, or **no item at all** when `nil` |
/// | a `RawRepresentable` enum | its raw value, once you declare `extension Sort: QueryValue {}` |
///
/// Names and values are then percent-encoded so that every character reaches the server as written.
public protocol QueryValue: Sendable {
    /// The strings to send, one item each; empty to send no item.
    var queryValues: [String] { get }
}

extension String: QueryValue {
    /// The string itself.
    public var queryValues: [String] { [self] }
}

extension Substring: QueryValue {
    /// The substring as a string.
    public var queryValues: [String] { [String(self)] }
}

extension Bool: QueryValue {
    /// `true` or `false`.
    public var queryValues: [String] { [self ? "true" : "false"] }
}

extension QueryValue where Self: BinaryInteger {
    /// The decimal digits.
    public var queryValues: [String] { [String(self)] }
}

extension QueryValue where Self: BinaryFloatingPoint & LosslessStringConvertible {
    /// The shortest text that reads back as the same value.
    public var queryValues: [String] { [description] }
}

extension Int: QueryValue {}
extension Int8: QueryValue {}
extension Int16: QueryValue {}
extension Int32: QueryValue {}
extension Int64: QueryValue {}
extension UInt: QueryValue {}
extension UInt8: QueryValue {}
extension UInt16: QueryValue {}
extension UInt32: QueryValue {}
extension UInt64: QueryValue {}
extension Double: QueryValue {}
extension Float: QueryValue {}

extension UUID: QueryValue {
    /// The UUID's uppercase string.
    public var queryValues: [String] { [uuidString] }
}

extension Array: QueryValue where Element: QueryValue {
    /// Every element's values, in order: the item's name is repeated for each.
    public var queryValues: [String] { flatMap(\.queryValues) }
}

extension Optional: QueryValue where Wrapped: QueryValue {
    /// The wrapped value's strings, or none when `nil`, so the item is dropped.
    public var queryValues: [String] { self?.queryValues ?? [] }
}

extension QueryValue where Self: RawRepresentable, RawValue: QueryValue {
    /// The raw value's strings.
    public var queryValues: [String] { rawValue.queryValues }
}

extension Array where Element == URLQueryItem {
    /// Query items from name–value pairs in order, encoded as ``QueryValue`` documents.
    ///
    ///     let items: [URLQueryItem] = .init(query: ["q": "tea", "tags": ["green", "hot"], "after": cursor])
    public init(query: KeyValuePairs<String, any QueryValue>) {
        self = query.flatMap { name, value in value.queryValues.map { URLQueryItem(name: name, value: $0) } }
    }
}
