/// The path of an endpoint, relative to its server environment's base URL.
///
/// Literal text is a route you wrote: `/` separates segments and it stays as written (characters that
/// cannot appear in a path, such as spaces, are percent-encoded). Every interpolated value becomes exactly
/// **one** path segment: `/`, `?`, `#`, `%` and `;` inside it are percent-encoded, so input can never add a
/// segment, a query or a fragment.
///
///     let item = Endpoint<EndpointKinds.Public, Item>(path: "items/\(id)")    // id "a/b?x": /items/a%2Fb%3Fx
///     let file = Endpoint<EndpointKinds.Public, Data>(path: EndpointPath(segments: ["files", name]))
///
/// No encoding protects against a dot-segment: RFC 3986 makes `%2E%2E` equivalent to `..`, and servers such as
/// nginx route `/items/%2E%2E/admin` and `/items/..%2Fadmin` to `/admin`. So an interpolated value that is `.`
/// or `..`, or holds one as a piece between `/` or `\`, fails to build with
/// ``EndpointError/Kind/invalidRequest``, as an empty value does (which would silently turn `items/\(id)` into
/// `items/`).
public struct EndpointPath: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The path as it is sent, already percent-encoded, without a leading `/`.
    public let percentEncoded: String

    /// Why this path cannot be sent, or `nil` when it can.
    let problem: String?

    /// Creates a path from literal text, which stays as written.
    public init(stringLiteral value: String) {
        self.percentEncoded = Self.trimmingLeadingSlashes(PercentEncoding.encodeLiteralPath(value))
        self.problem = nil
    }

    /// Creates a path from a string with interpolated values; each value becomes one segment.
    public init(stringInterpolation: StringInterpolation) {
        self.percentEncoded = Self.trimmingLeadingSlashes(stringInterpolation.output)
        self.problem = stringInterpolation.problem
    }

    /// Creates a path in which every element is one segment, encoded like an interpolated value.
    ///
    /// - Parameter segments: Unencoded segments; none may be empty.
    public init(segments: [String]) {
        self.percentEncoded = segments.map(PercentEncoding.encodeSegment).joined(separator: "/")
        self.problem = segments.lazy.compactMap { Self.problem(of: $0, after: "a segment") }.first
    }

    /// Why an interpolated `value` cannot be one segment, or `nil` when it can.
    static func problem(of value: String, after context: String) -> String? {
        if value.isEmpty { return "the value interpolated after \"\(context)\" is empty, which would change the route" }
        let pieces = value.split(omittingEmptySubsequences: false) { $0 == "/" || $0 == "\\" }
        if pieces.contains(where: { $0 == "." || $0 == ".." }) {
            return "the value interpolated after \"\(context)\" is or holds a dot-segment (. or ..), which a server "
                + "may resolve to another route, however it is encoded"
        }
        return nil
    }

    /// The percent-encoded path, for logs.
    public var description: String { percentEncoded }

    private static func trimmingLeadingSlashes(_ path: String) -> String {
        String(path.drop(while: { $0 == "/" }))
    }

    /// Builds an ``EndpointPath`` from a string literal with interpolations.
    public struct StringInterpolation: StringInterpolationProtocol {
        var output = ""
        var problem: String?

        /// Reserves room for the literal text and the interpolated values.
        public init(literalCapacity: Int, interpolationCount: Int) {
            output.reserveCapacity(literalCapacity + interpolationCount * 8)
        }

        /// Appends route text, which stays as written.
        public mutating func appendLiteral(_ literal: String) {
            output += PercentEncoding.encodeLiteralPath(literal)
        }

        /// Appends `value` as exactly one path segment.
        public mutating func appendInterpolation(_ value: some CustomStringConvertible) {
            let text = value.description
            if problem == nil { problem = EndpointPath.problem(of: text, after: output) }
            output += PercentEncoding.encodeSegment(text)
        }

        /// Appends another path as it is, for composing routes from pieces you wrote.
        public mutating func appendInterpolation(path: EndpointPath) {
            output += path.percentEncoded
            if problem == nil { problem = path.problem }
        }
    }
}
