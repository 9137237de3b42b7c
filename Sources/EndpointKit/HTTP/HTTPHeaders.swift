/// An ordered list of HTTP header fields with case-insensitive names.
///
///     var headers: HTTPHeaders = [.accept: "application/json", "X-Request-ID": requestID]
///     headers[.cacheControl] = "no-cache"
///
/// Headers are checked when a request is built, before anything is sent: a name must be an RFC 9110 token,
/// a value must hold no CR, LF, NUL or other control character and no non-ASCII text, and headers the
/// transport manages itself (``Name/host``, ``Name/contentLength``, ``Name/transferEncoding``, `Connection`,
/// `TE`, `Upgrade`, `Expect`) cannot be set. A violation fails with ``EndpointError/Kind/invalidRequest``.
public struct HTTPHeaders: Sendable, Hashable, ExpressibleByDictionaryLiteral, Sequence, CustomStringConvertible,
    CustomReflectable
{
    /// One header field.
    public struct Field: Sendable, Hashable {
        /// The field's name.
        public var name: Name
        /// The field's value.
        public var value: String

        /// Creates a field.
        public init(name: Name, value: String) {
            self.name = name
            self.value = value
        }
    }

    private var fields: [Field] {
        didSet { isChecked = false }
    }
    /// Whether the fields passed ``validate()`` and have not changed since: every hop checks the headers before
    /// the transport sees them, and headers nothing touched since the request was built need no second pass.
    /// Not part of the value: two lists with the same fields are equal whether checked or not.
    private(set) var isChecked = false

    /// Creates an empty list.
    public init() { fields = [] }

    /// Creates a list from fields, in order.
    public init(_ fields: [Field]) { self.fields = fields }

    /// Creates a list from a dictionary literal; a later duplicate name replaces an earlier one.
    public init(dictionaryLiteral elements: (Name, String)...) {
        fields = []
        for (name, value) in elements { self[name] = value }
    }

    /// The value of the first field named `name`, or `nil` when there is none. Setting a value replaces every
    /// field with that name; setting `nil` removes them.
    public subscript(name: Name) -> String? {
        get { fields.first(where: { $0.name == name })?.value }
        set {
            let wasChecked = isChecked
            if let index = fields.firstIndex(where: { $0.name == name }) {
                fields.removeAll(where: { $0.name == name })
                if let newValue { fields.insert(Field(name: name, value: newValue), at: index) }
            } else if let newValue {
                fields.append(Field(name: name, value: newValue))
            }
            // Checked lists stay checked when the one field written passes: no pass over the others.
            if wasChecked, newValue.map({ Self.problem(name: name, value: $0) == nil }) ?? true { isChecked = true }
        }
    }

    /// The values of every field named `name`, in order.
    public func values(for name: Name) -> [String] {
        fields.filter { $0.name == name }.map(\.value)
    }

    /// Appends a field, keeping any others with the same name.
    public mutating func add(_ value: String, for name: Name) {
        let wasChecked = isChecked
        fields.append(Field(name: name, value: value))
        if wasChecked, Self.problem(name: name, value: value) == nil { isChecked = true }
    }

    /// Removes every field named `name`.
    public mutating func remove(_ name: Name) {
        let wasChecked = isChecked
        fields.removeAll(where: { $0.name == name })
        isChecked = wasChecked
    }

    /// Removes every field `isRemoved` names, in one pass.
    mutating func removeAll(where isRemoved: (Name) -> Bool) {
        let wasChecked = isChecked
        fields.removeAll(where: { isRemoved($0.name) })
        isChecked = wasChecked
    }

    /// Whether a field named `name` is present.
    public func contains(_ name: Name) -> Bool {
        fields.contains(where: { $0.name == name })
    }

    /// The number of fields.
    public var count: Int { fields.count }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// Iterates over the fields in order.
    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// The fields with sensitive values redacted, so that `dump` never shows a credential.
    public var customMirror: Mirror {
        Mirror(
            self,
            unlabeledChildren: fields.map { "\($0.name): \($0.name.isSensitive ? Redaction.placeholder : $0.value)" },
            displayStyle: .collection
        )
    }

    /// The fields as `Name: value` lines, with sensitive values redacted.
    public var description: String {
        fields.map { "\($0.name): \($0.name.isSensitive ? Redaction.placeholder : $0.value)" }
            .joined(separator: ", ")
    }

    /// Whether two lists have the same fields in the same order.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool { lhs.fields == rhs.fields }

    /// Hashes the fields in order.
    public func hash(into hasher: inout Hasher) { hasher.combine(fields) }

    /// Notes that the fields, as they are now, passed ``validate()``; any change clears the note.
    mutating func markChecked() { isChecked = true }

    /// Returns these fields, then those of `other` whose names these do not have.
    func merging(defaults other: HTTPHeaders) -> HTTPHeaders {
        var merged = self
        for field in other.fields where !contains(field.name) {
            merged.fields.append(field)
        }
        return merged
    }
}
