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
///
/// A path also knows its route: ``template`` is the path with each interpolated value replaced by a name in
/// braces (`items/\(id)` gives `items/{id}`), which tracing reports as OpenTelemetry's `url.template`.
public struct EndpointPath: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The path as it is sent, already percent-encoded, without a leading `/`.
    public let percentEncoded: String

    /// Why this path cannot be sent, or `nil` when it can.
    let problem: String?

    /// Where the interpolated values sit in ``percentEncoded``, or `nil` when the route is not known (a path made
    /// from segments). Offsets only: the template is built when someone reads it, never on the way to the wire.
    private let holes: [TemplateHole]?

    /// Creates a path from literal text, which stays as written.
    public init(stringLiteral value: String) {
        self.percentEncoded = Self.trimmingLeadingSlashes(PercentEncoding.encodeLiteralPath(value))
        self.problem = nil
        self.holes = []
    }

    /// Creates a path from a string with interpolated values; each value becomes one segment.
    public init(stringInterpolation: StringInterpolation) {
        let trimmed = Self.trimmingLeadingSlashes(stringInterpolation.output)
        let dropped = stringInterpolation.output.utf8.count - trimmed.utf8.count
        self.percentEncoded = trimmed
        self.problem = stringInterpolation.problem
        self.holes = stringInterpolation.holes?.map { $0.shifted(by: -dropped) }
    }

    /// Creates a path in which every element is one segment, encoded like an interpolated value. Its
    /// ``template`` is `nil`: nothing tells which segments are the route.
    ///
    /// - Parameter segments: Unencoded segments; none may be empty.
    public init(segments: [String]) {
        self.percentEncoded = segments.map(PercentEncoding.encodeSegment).joined(separator: "/")
        self.problem = segments.lazy.compactMap { Self.problem(of: $0, after: "a segment") }.first
        self.holes = nil
    }

    /// The route with every interpolated value replaced by its name in braces, without a leading `/`:
    /// `"repos/\(owner, as: "owner")/\(repo, as: "repo")"` gives `repos/{owner}/{repo}`, and an unnamed value
    /// is `{id}`. `nil` for a path made from segments, whose route is unknown. Low-cardinality by construction,
    /// so it can name a span or a metric.
    public var template: String? {
        guard let holes else { return nil }
        guard !holes.isEmpty else { return percentEncoded }
        let utf8 = Array(percentEncoded.utf8)
        var result = ""
        var position = 0
        for hole in holes {
            result += String(decoding: utf8[position..<max(position, hole.start)], as: UTF8.self)
            result += "{\(hole.name)}"
            position = max(position, hole.end)
        }
        result += String(decoding: utf8[min(position, utf8.count)...], as: UTF8.self)
        return result
    }

    /// Whether two paths send the same text; how it was built does not matter.
    public static func == (lhs: EndpointPath, rhs: EndpointPath) -> Bool {
        lhs.percentEncoded == rhs.percentEncoded && lhs.problem == rhs.problem
    }

    /// Hashes the text that is sent.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(percentEncoded)
        hasher.combine(problem)
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
        /// Where each value went, as UTF-8 offsets in `output`; `nil` once a piece of unknown route was added.
        var holes: [TemplateHole]? = []

        /// Reserves room for the literal text and the interpolated values.
        public init(literalCapacity: Int, interpolationCount: Int) {
            output.reserveCapacity(literalCapacity + interpolationCount * 8)
        }

        /// Appends route text, which stays as written.
        public mutating func appendLiteral(_ literal: String) {
            output += PercentEncoding.encodeLiteralPath(literal)
        }

        /// Appends `value` as exactly one path segment, shown as `{id}` in the ``EndpointPath/template``.
        public mutating func appendInterpolation(_ value: some CustomStringConvertible) {
            appendInterpolation(value, as: "id")
        }

        /// Appends `value` as exactly one path segment, shown as `{name}` in the ``EndpointPath/template``:
        /// `"users/\(login, as: "login")"` has the template `users/{login}`.
        public mutating func appendInterpolation(_ value: some CustomStringConvertible, as name: StaticString) {
            let text = value.description
            if problem == nil { problem = EndpointPath.problem(of: text, after: output) }
            let start = output.utf8.count
            output += PercentEncoding.encodeSegment(text)
            holes?.append(TemplateHole(start: start, end: output.utf8.count, name: name))
        }

        /// Appends another path as it is, for composing routes from pieces you wrote; its template joins this one's.
        public mutating func appendInterpolation(path: EndpointPath) {
            let start = output.utf8.count
            output += path.percentEncoded
            if problem == nil { problem = path.problem }
            if let inner = path.holes {
                holes?.append(contentsOf: inner.map { $0.shifted(by: start) })
            } else {
                holes = nil
            }
        }
    }
}

/// Where one interpolated value sits in a path's text, and the name its template shows.
struct TemplateHole: Sendable {
    var start: Int
    var end: Int
    var name: StaticString

    func shifted(by offset: Int) -> TemplateHole {
        TemplateHole(start: max(0, start + offset), end: max(0, end + offset), name: name)
    }
}
